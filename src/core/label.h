/* A label as the data hands it to the loss (text/data.h's Dataset, a
 * batch's labels, model/layers.h's softmax_xent): one int per slot.
 *
 *   k >= 0            class k: trained on and scored
 *   -1                no label: neither (a padded slot, a word labelled '_')
 *   label_unscored(k) class k in the training loss alone, never scored
 *                     (-2 - k: the padding after Ruoss et al.'s end symbol,
 *                     which their loss trains on and their accuracy
 *                     leaves out; data/README.md)
 *
 * Every count of right answers reads "label >= 0" and so leaves the last
 * kind out with the padding; only the loss asks label_trained. */
#ifndef POSENC_LABEL_H
#define POSENC_LABEL_H

static inline int label_unscored(int k) { return -2 - k; }

/* The class the loss trains the slot on, or -1 for none. */
static inline int label_trained(int label) { return label >= -1 ? label : -2 - label; }

#endif
