/* The options of the running program, so that its messages name only
 * options its reader can give (evaluate's none of train's), and the one
 * closest to an option mistyped.
 *
 * The program registers its help text once (examples/cli.c does, in
 * cli_help). A library used alone (the tests' calls, the web page)
 * registers none: every option then counts as the program's, and messages
 * stay as the library wrote them.
 *
 * The options a program takes are the "--name"s of its help text but
 * those it names as another program's: after that program's name, with
 * or without a path, blanks and a line end between ("a model written by
 * train --out", "build/demo_order --pe"). The names of the programs come
 * with the help. */
#ifndef POSENC_OPTIONS_H
#define POSENC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* Registers the help text of the program self and the names of all the
 * programs, blank-separated ("train evaluate ..."); copied, a second call
 * replaces them. */
void options_register(const char *help, const char *programs, const char *self);

/* Whether the program takes flag ("--max-train-len"). */
bool options_has(const char *flag);

/* text if the program takes flag, else "": a clause of a message that
 * suggests it ("; set --layers"), left out where it cannot be followed. */
const char *options_if(const char *flag, const char *text);

/* Those of flags (NULL-terminated) the program takes, "--a, --b or --c",
 * into buf (cap bytes), "" when it takes none; returns buf. */
const char *options_list(char *buf, size_t cap, const char *const *flags);

/* msg (a NUL-terminated message, edited in place) with every "--name" the
 * program does not take stripped of its dashes, so that it reads as the
 * setting's name ("eval-every", a checkpoint's key; "choose another pe")
 * instead of an option the program would refuse. Left alone: a name in
 * quotes (what the user typed) and one after a program's name, which is
 * that program's ("build/train --out writes one"). The safety net under
 * options_if and options_list, which give the better message. */
void options_tidy(char *msg);

/* The option the program takes closest to arg (its first n bytes) by
 * edit distance, if one is close: two edits, or a third of a long name.
 * Into found (cap bytes); false when none is. */
bool options_closest(const char *arg, size_t n, char *found, size_t cap);

#endif
