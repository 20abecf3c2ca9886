/* Delétang et al.'s (ICLR 2023) tasks on strings and stacks, as the code
 * of Ruoss et al. (ACL 2023, google-deepmind/randomized_positional_encodings,
 * tasks/regular, tasks/dcf, tasks/cs) defines them: the same alphabets,
 * output lengths and sampling, where its docstrings and its code disagree
 * the code's (it made the papers' numbers). The arithmetic tasks are in
 * tasks_numbers.c; data/README.md shows an example of each.
 *
 * Each draws its input uniformly, as the reference does, and writes the
 * tape of tape.h. A word's index in its alphabet is the reference's token
 * id, and a label's its class id. */
#include "tape.h"

static const char *const BIT[2] = {"0", "1"};
static const char *const SYMBOL[5] = {"0", "1", "2", "3", "4"};

static size_t two_n_blanks(size_t n) { return 2 * n; }

/* n uniform tokens of an alphabet of k into x, and onto the tape. */
static void draw(Rng *r, Tape *t, size_t *x, size_t n, const char *const *alphabet, size_t k) {
    for (size_t i = 0; i < n; i++) {
        x[i] = rng_below(r, k);
        tape_in(t, alphabet[x[i]]);
    }
}

/* ---- regular ---- */

/* Class 1 when the string has an odd number of pairs 01 and 10. */
static size_t even_pairs_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN], changes = 0;
    draw(r, &t, x, n, BIT, 2);
    for (size_t i = 0; i + 1 < n; i++)
        changes += x[i] != x[i + 1];
    tape_out(&t, BIT[changes % 2]);
    return t.n;
}

/* The number of 1s mod 2. */
static size_t parity_check_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN], ones = 0;
    draw(r, &t, x, n, BIT, 2);
    for (size_t i = 0; i < n; i++)
        ones += x[i];
    tape_out(&t, BIT[ones % 2]);
    return t.n;
}

/* Actions 0, 1, 2 move by action - 1 on a cycle of 5, from 0: the
 * reference's code (sum(actions - 1) % 5); its docstring's "0 stay, 1
 * right, -1 left" names other tokens. */
#define CYCLE 5
static size_t cycle_navigation_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN], at = 0;
    draw(r, &t, x, n, SYMBOL, 3);
    for (size_t i = 0; i < n; i++)
        at = (at + x[i] + CYCLE - 1) % CYCLE;
    tape_out(&t, SYMBOL[at]);
    return t.n;
}

BENCH_TASK(even_pairs, TASK_REGULAR, one_blank,
           "bits -> 1 if the pairs 01 and 10 are odd in number, else 0 (Deletang et al.)");
BENCH_TASK(parity_check, TASK_REGULAR, one_blank,
           "bits -> the number of 1s mod 2 (Deletang et al.)");
BENCH_TASK(cycle_navigation, TASK_REGULAR, one_blank,
           "actions 0 1 2 (left, stay, right) on a cycle of 5 -> the final place, from 0 "
           "(Deletang et al.)");

/* ---- deterministic context-free ---- */

static size_t reverse_string_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN];
    draw(r, &t, x, n, BIT, 2);
    for (size_t i = 0; i < n; i++)
        tape_out(&t, BIT[x[n - 1 - i]]);
    return t.n;
}

/* The reference's input tokens 0 1 (the stack) and 2 3 4 (the actions),
 * and its output tokens 0 1 and 2, the termination (TAPE_END). */
#define POP 2
#define PUSH0 3
static const char *const STACK_WORD[5] = {"0", "1", "pop", "push0", "push1"};

/* A stack given bottom to top, then actions; the output is the final
 * stack top to bottom, the termination token, then padding to n + 1
 * symbols: '_', as the reference's accuracy mask leaves it unscored
 * (TaskOptions.pad_loss puts it in the loss, TAPE_PAD_LOSS). POP on an
 * empty stack does nothing. Length 1 is a stack of one bit. */
static size_t stack_manipulation_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN], stack[TASK_MAX_LEN];
    size_t held = n == 1 ? 1 : 1 + rng_below(r, n - 1); /* the reference's 1..n-1 */
    draw(r, &t, x, held, STACK_WORD, 2);
    for (size_t i = 0; i < held; i++)
        stack[i] = x[i];
    for (size_t i = held; i < n; i++) {
        x[i] = POP + rng_below(r, 3);
        tape_in(&t, STACK_WORD[x[i]]);
        if (x[i] == POP)
            held -= held > 0;
        else
            stack[held++] = x[i] - PUSH0;
    }
    for (size_t i = 0; i < held; i++)
        tape_out(&t, BIT[stack[held - 1 - i]]);
    tape_out(&t, TAPE_END);
    while (t.n < 2 * n + 1)
        tape_out(&t, DATA_NO_LABEL);
    return t.n;
}

BENCH_TASK(reverse_string, TASK_DCF, n_blanks, "bits -> the bits reversed (Deletang et al.)");
BENCH_TASK_PAD(stack_manipulation, TASK_DCF, n_plus_one_blanks,
               "a stack of bits, then pop/push0/push1 -> the final stack top to bottom, "
               "then $ (Deletang et al.)", TAPE_PAD_LOSS);

/* ---- context-sensitive ---- */

static size_t duplicate_string_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN];
    draw(r, &t, x, n, BIT, 2);
    for (size_t i = 0; i < 2 * n; i++)
        tape_out(&t, BIT[x[i % n]]);
    return t.n;
}

/* The reference's tokens 2 (the missing bit) and 3 (the padding). */
#define MISSING "x"
#define PAD "."

/* Bits h = n/2 long, twice, with one bit of the 2h replaced by x (its
 * place uniform); for odd n, the padding after them. The label is the
 * missing bit. Length 1 is the reference's fixed example: input 1, label 1. */
static size_t missing_duplicate_string_example(Rng *r, size_t n, const char **w,
                                               const char **lab) {
    Tape t = tape_start(w, lab);
    if (n == 1) {
        tape_in(&t, BIT[1]);
        tape_out(&t, BIT[1]);
        return t.n;
    }
    size_t x[TASK_MAX_LEN / 2], h = n / 2;
    for (size_t i = 0; i < h; i++)
        x[i] = rng_below(r, 2);
    size_t missing = rng_below(r, 2 * h);
    for (size_t i = 0; i < 2 * h; i++)
        tape_in(&t, i == missing ? MISSING : BIT[x[i % h]]);
    if (n % 2)
        tape_in(&t, PAD);
    tape_out(&t, BIT[x[missing % h]]);
    return t.n;
}

/* The bits at odd indices (0-based), then those at even ones: the
 * reference's code, x[1::2] then x[::2]; its docstring counts from 1. */
static size_t odds_first_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN];
    draw(r, &t, x, n, BIT, 2);
    for (size_t i = 1; i < n; i += 2)
        tape_out(&t, BIT[x[i]]);
    for (size_t i = 0; i < n; i += 2)
        tape_out(&t, BIT[x[i]]);
    return t.n;
}

/* Symbols 0..4 sorted, as the reference's bucket_sort with vocab_size 5. */
static size_t bucket_sort_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t x[TASK_MAX_LEN], count[5] = {0};
    draw(r, &t, x, n, SYMBOL, 5);
    for (size_t i = 0; i < n; i++)
        count[x[i]]++;
    for (size_t v = 0; v < 5; v++)
        for (size_t c = 0; c < count[v]; c++)
            tape_out(&t, SYMBOL[v]);
    return t.n;
}

BENCH_TASK(duplicate_string, TASK_CS, two_n_blanks,
           "bits -> the bits twice (Deletang et al.); a tape of 3n words");
BENCH_TASK(missing_duplicate_string, TASK_CS, one_blank,
           "bits written twice with one replaced by x -> the missing bit (Deletang et al.)");
BENCH_TASK(odds_first, TASK_CS, n_blanks,
           "bits -> those at odd places (from 0), then those at even places (Deletang et al.)");
BENCH_TASK(bucket_sort, TASK_CS, n_blanks, "symbols 0..4 -> the symbols sorted (Deletang et al.)");
