/* Delétang et al.'s tasks against their definitions (as the reference
 * code, google-deepmind/randomized_positional_encodings, has them): every
 * generated example is read back from its tape and its labels computed
 * again here, by code that shares nothing with the generators
 * (src/text/tasks_chomsky.c, tasks_numbers.c) and takes another road where
 * there is one: a parser for the arithmetic, where the generators build
 * the value with the expression; carries bit by bit for the binary
 * numbers, where they use 32-bit limbs; a square checked, not a root
 * computed. The draws are checked too: each value the reference can draw
 * (a stack's length, an operand's length, the missing bit's place) turns
 * up. */
#include <stdlib.h>
#include <string.h>

#include "../src/text/tasks.h"
#include "suites.h"

#define MAXW TASK_MAX_LEN

/* Check's asserts report each passing check to the runner, a system call
 * apiece: millions here. These fail as they do and are silent otherwise. */
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)
#define CHECK_OP(a, op, b)                                                                     \
    CHECK((size_t)(a) op (size_t)(b), "%s %s %s fails: %zu, %zu", #a, #op, #b, (size_t)(a),    \
          (size_t)(b))
#define CHECK_TRUE(cond) CHECK(cond, "%s", #cond)
#define CHECK_STR(a, b) CHECK(strcmp(a, b) == 0, "'%s' is not '%s' (%s)", a, b, #a)

/* An example read back: the words before the blanks, and the labels of
 * the blanks. */
typedef struct {
    const char *in[MAXW], *out[MAXW];
    size_t n, m;
} Ex;

static void read_tape(const TextData *d, size_t i, Ex *x) {
    size_t a = d->start[i], len = d->start[i + 1] - a;
    CHECK_OP(len, <=, TASK_MAX_LEN);
    x->n = x->m = 0;
    for (size_t k = 0; k < len; k++) {
        const char *w = d->word[a + k], *l = d->label[a + k];
        if (strcmp(w, "?") == 0) {
            x->out[x->m++] = l;
        } else {
            CHECK(x->m == 0, "a word '%s' after a blank", w);
            CHECK(strcmp(l, "_") == 0, "the input word '%s' has the label '%s'", w, l);
            x->in[x->n++] = w;
        }
    }
    CHECK(x->m > 0, "no blank on the tape");
}

static bool is(const char *w, const char *s) { return strcmp(w, s) == 0; }

/* w as a symbol 0..k-1 (one digit); fails the test otherwise. */
static size_t sym(const char *w, size_t k) {
    CHECK(w[0] >= '0' && w[0] < '0' + (int)k && w[1] == '\0', "'%s' is not 0..%zu", w,
                  k - 1);
    return (size_t)(w[0] - '0');
}

static const char *const NUM[5] = {"0", "1", "2", "3", "4"};

/* What an expect function gives back: the labels the blanks must carry,
 * and a value of the example's draw to count (or NONE). */
#define NONE ((size_t)-1)
typedef struct {
    const char *want[MAXW];
    size_t m, draw;
} Want;

static void put(Want *w, const char *s) { w->want[w->m++] = s; }

static size_t pops_on_empty; /* stack_manipulation's edge case, seen this many times */

/* ---- regular ---- */

static void even_pairs(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    /* the pairs 01 and 10 are odd in number exactly when the ends differ */
    put(w, NUM[sym(x->in[0], 2) != sym(x->in[L - 1], 2)]);
}

static void parity_check(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    size_t odd = 0;
    for (size_t i = 0; i < L; i++)
        odd ^= sym(x->in[i], 2);
    put(w, NUM[odd]);
}

static void cycle_navigation(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    int at = 0;
    for (size_t i = 0; i < L; i++) {
        size_t a = sym(x->in[i], 3);
        if (a == 0)
            at = at == 0 ? 4 : at - 1; /* left */
        else if (a == 2)
            at = at == 4 ? 0 : at + 1; /* right */
    }
    put(w, NUM[at]);
}

/* Arithmetic mod 5 by recursive descent: expr = term {(+|-) term}, term =
 * factor {* factor}, factor = digit | x | - factor | ( expr ). */
typedef struct {
    const char *const *w;
    size_t n, at, x;
} Parser;

static size_t p_expr(Parser *p);

static const char *p_peek(const Parser *p) { return p->at < p->n ? p->w[p->at] : ""; }

static size_t p_factor(Parser *p) {
    const char *w = p_peek(p);
    CHECK(p->at < p->n, "the expression ends early");
    p->at++;
    if (is(w, "-"))
        return (5 - p_factor(p)) % 5;
    if (is(w, "x"))
        return p->x;
    if (!is(w, "("))
        return sym(w, 5);
    size_t v = p_expr(p);
    CHECK(is(p_peek(p), ")"), "a bracket is not closed");
    p->at++;
    return v;
}

static size_t p_term(Parser *p) {
    size_t v = p_factor(p);
    while (is(p_peek(p), "*")) {
        p->at++;
        v = v * p_factor(p) % 5;
    }
    return v;
}

static size_t p_expr(Parser *p) {
    size_t v = p_term(p);
    while (is(p_peek(p), "+") || is(p_peek(p), "-")) {
        bool minus = is(p->w[p->at++], "-");
        size_t t = p_term(p);
        v = minus ? (v + 5 - t) % 5 : (v + t) % 5;
    }
    return v;
}

/* The value of w[0..n) with x standing for x; the whole must parse. */
static size_t evaluate(const char *const *w, size_t n, size_t x) {
    Parser p = {w, n, 0, x};
    size_t v = p_expr(&p);
    CHECK(p.at == n, "'%s' is left over", p_peek(&p));
    return v;
}

static void modular_arithmetic(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L % 2 ? L : L - 1); /* the reference makes lengths odd */
    for (size_t i = 0; i < x->n; i++)
        if (i % 2)
            CHECK_TRUE(is(x->in[i], "+") || is(x->in[i], "-") || is(x->in[i], "*"));
        else
            sym(x->in[i], 5);
    w->draw = x->n >= 3 ? (size_t)(strchr("+-*", x->in[1][0]) - "+-*") : NONE;
    put(w, NUM[evaluate(x->in, x->n, 0)]);
}

/* ---- deterministic context-free ---- */

static void reverse_string(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    for (size_t i = L; i-- > 0;)
        put(w, NUM[sym(x->in[i], 2)]);
}

static void stack_manipulation(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    size_t bits = 0;
    while (bits < L && (is(x->in[bits], "0") || is(x->in[bits], "1")))
        bits++;
    /* a stack of at least one bit, then at least one action (but at length 1) */
    CHECK_TRUE(bits >= 1 && (L == 1 || bits < L));
    w->draw = L >= 2 ? bits - 1 : NONE;
    char stack[MAXW];
    size_t top = 0;
    for (size_t i = 0; i < L; i++) {
        const char *a = x->in[i];
        if (i < bits)
            stack[top++] = a[0];
        else if (is(a, "pop") && top)
            top--;
        else if (is(a, "pop"))
            pops_on_empty++; /* ignored, as the reference ignores it */
        else if (is(a, "push0") || is(a, "push1"))
            stack[top++] = a[4];
        else
            ck_abort_msg("'%s' is no action", a);
    }
    while (top)
        put(w, stack[--top] == '1' ? "1" : "0");
    put(w, "$");
    while (w->m < L + 1)
        put(w, "_"); /* after the termination: unscored */
}

static void modular_arithmetic_brackets(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    for (size_t i = 0; i < L; i++)
        CHECK_TRUE(!is(x->in[i], "x") && !is(x->in[i], "="));
    put(w, NUM[evaluate(x->in, L, 0)]);
}

static void solve_equation(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    if (L < 3) { /* the reference's fixed example */
        for (size_t i = 0; i < L; i++)
            CHECK_STR(x->in[i], "0");
        put(w, "0");
        return;
    }
    CHECK_STR(x->in[L - 2], "=");
    size_t rhs = sym(x->in[L - 1], 5), xs = 0, solution = 5, solutions = 0;
    for (size_t i = 0; i < L - 2; i++) {
        xs += is(x->in[i], "x");
        CHECK_TRUE(!is(x->in[i], "*")); /* the reference's default: + and - */
    }
    CHECK_OP(xs, ==, 1);
    for (size_t v = 0; v < 5; v++)
        if (evaluate(x->in, L - 2, v) == rhs) {
            solution = v;
            solutions++;
        }
    CHECK_OP(solutions, ==, 1);
    put(w, NUM[solution]);
}

/* ---- context-sensitive ---- */

static void duplicate_string(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < L; i++)
            put(w, NUM[sym(x->in[i], 2)]);
}

static void missing_duplicate_string(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    if (L == 1) { /* the reference's fixed example */
        CHECK_STR(x->in[0], "1");
        put(w, "1");
        return;
    }
    size_t h = L / 2, missing = NONE;
    if (L % 2)
        CHECK_STR(x->in[L - 1], ".");
    for (size_t i = 0; i < 2 * h; i++) {
        if (is(x->in[i], "x")) {
            CHECK_OP(missing, ==, NONE);
            missing = i;
        } else if (i >= h && !is(x->in[i - h], "x")) {
            CHECK_STR(x->in[i], x->in[i - h]); /* the two halves agree */
        }
    }
    CHECK_OP(missing, !=, NONE);
    w->draw = missing;
    put(w, NUM[sym(x->in[missing < h ? missing + h : missing - h], 2)]);
}

static void odds_first(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    for (size_t k = 0; k < L / 2; k++)
        put(w, NUM[sym(x->in[2 * k + 1], 2)]);
    for (size_t k = 0; k < (L + 1) / 2; k++)
        put(w, NUM[sym(x->in[2 * k], 2)]);
}

static int cmp_word(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void bucket_sort(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    for (size_t i = 0; i < L; i++)
        put(w, x->in[i]);
    qsort(w->want, L, sizeof *w->want, cmp_word);
    for (size_t i = 0; i < L; i++)
        sym(w->want[i], 5);
}

/* Binary numbers as bits, least significant first, carried one by one. */
typedef struct {
    unsigned char b[2 * MAXW + 2];
    size_t n;
} Bits;

static void bits_add(Bits *s, const Bits *a, const Bits *b) {
    Bits r = {{0}, 0};
    unsigned carry = 0;
    for (size_t i = 0; i < a->n || i < b->n || carry; i++) {
        unsigned t = carry + (i < a->n ? a->b[i] : 0) + (i < b->n ? b->b[i] : 0);
        r.b[r.n++] = t & 1;
        carry = t >> 1;
    }
    *s = r;
}

/* Shift and add. */
static void bits_mul(Bits *p, const Bits *a, const Bits *b) {
    Bits sum = {{0}, 0}, shifted = {{0}, 0};
    for (size_t i = 0; i < b->n; i++)
        if (b->b[i]) {
            shifted.n = i + a->n;
            memset(shifted.b, 0, i);
            memcpy(shifted.b + i, a->b, a->n);
            bits_add(&sum, &sum, &shifted);
        }
    *p = sum;
}

static size_t bits_len(const Bits *a) {
    size_t n = a->n;
    while (n && !a->b[n - 1])
        n--;
    return n;
}

static int bits_cmp(const Bits *a, const Bits *b) {
    size_t na = bits_len(a), nb = bits_len(b);
    if (na != nb)
        return na < nb ? -1 : 1;
    for (size_t i = na; i-- > 0;)
        if (a->b[i] != b->b[i])
            return a->b[i] < b->b[i] ? -1 : 1;
    return 0;
}

/* words in[0..n) as a little-endian number */
static void bits_read(Bits *a, const char *const *in, size_t n) {
    a->n = n;
    for (size_t i = 0; i < n; i++)
        a->b[i] = (unsigned char)sym(in[i], 2);
}

static void binary(const Ex *x, size_t L, Want *w, bool times) {
    CHECK_OP(x->n, ==, L);
    const char *op = times ? "*" : "+";
    size_t at = NONE;
    for (size_t i = 0; i < L; i++)
        if (is(x->in[i], op))
            at = i;
    Bits a = {{0}, 0}, b = {{0}, 0}, r = {{0}, 0};
    if (L <= 2) { /* a number below 2^L - 1, no operator */
        CHECK_OP(at, ==, NONE);
        bits_read(&a, x->in, L);
        CHECK_OP(a.b[0] + (L == 2 ? 2u * a.b[1] : 0u), <, (1u << L) - 1);
        r = a;
        if (times) { /* the reference's fixed result: nothing, or one 0 */
            memset(r.b, 0, sizeof r.b);
            r.n = L - 1;
        } else { /* the number itself, 0 as "0" */
            r.n = bits_len(&a) ? bits_len(&a) : 1;
        }
    } else {
        CHECK(at != NONE && at >= 1 && at <= L - 2, "the operator is at %zu", at);
        w->draw = at - 1;
        bits_read(&a, x->in, at);
        bits_read(&b, x->in + at + 1, L - 1 - at);
        CHECK_TRUE(bits_len(&a) > 0 && bits_len(&b) > 0); /* both drawn from 1.. */
        if (times)
            bits_mul(&r, &a, &b);
        else
            bits_add(&r, &a, &b);
        r.n = bits_len(&r);
    }
    for (size_t i = 0; i < r.n; i++)
        put(w, NUM[r.b[i]]);
    put(w, "$");
    while (w->m < (times ? L : L + 1))
        put(w, "_"); /* after the termination: unscored */
}

static void binary_addition(const Ex *x, size_t L, Want *w) { binary(x, L, w, false); }

static void binary_multiplication(const Ex *x, size_t L, Want *w) { binary(x, L, w, true); }

/* Checks the labels as a root: r^2 <= N < (r + 1)^2; then asks for them. */
static void compute_sqrt(const Ex *x, size_t L, Want *w) {
    CHECK_OP(x->n, ==, L);
    CHECK_OP(x->m, ==, (L + 1) / 2);
    Bits N = {{0}, L}, r = {{0}, x->m}, one = {{1}, 1}, sq, next;
    for (size_t i = 0; i < L; i++)
        N.b[i] = (unsigned char)sym(x->in[L - 1 - i], 2); /* big-endian */
    for (size_t i = 0; i < x->m; i++)
        r.b[i] = (unsigned char)sym(x->out[x->m - 1 - i], 2);
    CHECK_TRUE(bits_len(&N) > 0); /* drawn from 1..2^L - 1 */
    bits_mul(&sq, &r, &r);
    CHECK_TRUE(bits_cmp(&sq, &N) <= 0);
    bits_add(&next, &r, &one);
    bits_mul(&sq, &next, &next);
    CHECK_TRUE(bits_cmp(&sq, &N) > 0);
    for (size_t i = 0; i < x->m; i++)
        put(w, x->out[i]);
}

/* Every task, its definition, and how many values its draw takes at
 * length L (0: none counted). */
static size_t no_draw(size_t L) { return (void)L, 0; }
static size_t three_ops(size_t L) { return L >= 3 ? 3 : 0; }
static size_t stack_lengths(size_t L) { return L >= 2 ? L - 1 : 0; }
static size_t operand_lengths(size_t L) { return L >= 3 ? L - 2 : 0; }
static size_t missing_places(size_t L) { return L >= 2 ? 2 * (L / 2) : 0; }

static const struct {
    const char *name;
    void (*expect)(const Ex *x, size_t L, Want *w);
    size_t (*draws)(size_t L);
} DEF[] = {
    {"even_pairs", even_pairs, no_draw},
    {"modular_arithmetic", modular_arithmetic, three_ops},
    {"parity_check", parity_check, no_draw},
    {"cycle_navigation", cycle_navigation, no_draw},
    {"stack_manipulation", stack_manipulation, stack_lengths},
    {"reverse_string", reverse_string, no_draw},
    {"modular_arithmetic_brackets", modular_arithmetic_brackets, no_draw},
    {"solve_equation", solve_equation, no_draw},
    {"duplicate_string", duplicate_string, no_draw},
    {"missing_duplicate_string", missing_duplicate_string, missing_places},
    {"odds_first", odds_first, no_draw},
    {"binary_addition", binary_addition, operand_lengths},
    {"binary_multiplication", binary_multiplication, operand_lengths},
    {"compute_sqrt", compute_sqrt, no_draw},
    {"bucket_sort", bucket_sort, no_draw},
};
#define N_DEF (sizeof DEF / sizeof DEF[0])

/* Checks example i of d (input length L) against DEF[t]; counts its draw
 * in seen (values below cap). */
static void check_example(size_t t, const TextData *d, size_t i, size_t L, bool *seen,
                          size_t cap) {
    Ex x;
    Want w = {.m = 0, .draw = NONE};
    read_tape(d, i, &x);
    DEF[t].expect(&x, L, &w);
    bool same = x.m == w.m;
    for (size_t k = 0; same && k < w.m; k++)
        same = strcmp(x.out[k], w.want[k]) == 0;
    if (!same) {
        char *line = example_joined(d, i, false), *got = example_joined(d, i, true);
        char want[4 * MAXW] = "";
        for (size_t k = 0; k < w.m; k++)
            strcat(strcat(want, " "), w.want[k]);
        ck_abort_msg("%s: '%s' has the labels '%s'; the definition gives the blanks'%s'",
                     DEF[t].name, line, got, want);
    }
    if (w.draw != NONE && w.draw < cap)
        seen[w.draw] = true;
}

static void make_at(TextData s[3], const char *task, size_t L, size_t n, uint64_t seed) {
    TaskOptions o = {.min_len = L, .max_len = L, .n_train = n, .n_valid = 1, .n_test = 1,
                     .seed = seed};
    Err e;
    CHECK(task_make(&s[0], &s[1], &s[2], task, &o, &e) == 0, "%s at %zu: %s", task, L,
                  e.msg);
}

/* Every task, every length 1..40, five seeds of 60 examples: each label
 * is the definition's; below length 13 every value of the draw appears. */
START_TEST(labels_follow_the_definitions) {
    for (size_t t = 0; t < N_DEF; t++) {
        CHECK_TRUE(task_exists(DEF[t].name));
        for (size_t L = 1; L <= 40; L++) {
            bool seen[MAXW] = {false};
            for (uint64_t seed = 1; seed <= 5; seed++) {
                TextData s[3];
                make_at(s, DEF[t].name, L, 60, seed);
                for (int k = 0; k < 3; k++)
                    for (size_t i = 0; i < s[k].n; i++)
                        check_example(t, &s[k], i, L, seen, MAXW);
                for (int k = 0; k < 3; k++)
                    textdata_free(&s[k]);
            }
            for (size_t v = 0; L <= 12 && v < DEF[t].draws(L); v++)
                CHECK(seen[v], "%s at length %zu never draws %zu", DEF[t].name, L, v);
        }
    }
    CHECK_OP(pops_on_empty, >, 0); /* the edge case was there to check */
}
END_TEST

/* At the longest input a tape of 512 words allows: numbers of hundreds of
 * bits, the limbs' carries and the deepest brackets. */
START_TEST(labels_at_the_longest_inputs) {
    for (size_t t = 0; t < N_DEF; t++) {
        const Task *task = task_find(DEF[t].name);
        size_t L = TASK_MAX_LEN;
        while (L + task->blanks(L) > TASK_MAX_LEN)
            L--;
        size_t lengths[] = {L, L - 1, 64, 65, 97};
        for (size_t j = 0; j < 5; j++) {
            TextData s[3];
            make_at(s, DEF[t].name, lengths[j], 20, j + 1);
            for (size_t i = 0; i < s[0].n; i++)
                check_example(t, &s[0], i, lengths[j], NULL, 0);
            for (int k = 0; k < 3; k++)
                textdata_free(&s[k]);
        }
    }
}
END_TEST

/* The splits' lengths: train up to max_train_len, valid and test to
 * max_len, each length reached; the tape as long as the task says. */
START_TEST(splits_and_tapes) {
    for (size_t t = 0; t < N_DEF; t++) {
        const Task *task = task_find(DEF[t].name);
        TaskOptions o = {.min_len = 2, .max_train_len = 5, .max_len = 9, .n_train = 400,
                         .n_valid = 100, .n_test = 300, .seed = 3};
        TextData s[3];
        Err e;
        CHECK(task_make(&s[0], &s[1], &s[2], task->name, &o, &e) == 0, "%s", e.msg);
        for (int k = 0; k < 3; k++) {
            size_t hi = k ? 9 : 5, longest = 0;
            CHECK_OP(s[k].kind, ==, LABELS_TOKEN);
            for (size_t i = 0; i < s[k].n; i++) {
                Ex x;
                read_tape(&s[k], i, &x);
                /* modular_arithmetic makes an even length odd, one shorter */
                bool odd = strcmp(task->name, "modular_arithmetic") == 0;
                CHECK(x.n <= hi && x.n + odd >= 2, "%s: an input of %zu", task->name,
                              x.n);
                CHECK_OP(x.m, <=, task->blanks(x.n + odd));
                longest = x.n > longest ? x.n : longest;
            }
            CHECK_OP(longest, >=, hi - (strcmp(task->name, "modular_arithmetic") == 0));
            textdata_free(&s[k]);
        }
    }
}
END_TEST

TCase *tcase_chomsky(void) {
    TCase *tc = tcase_create("chomsky");
    tcase_add_test(tc, labels_follow_the_definitions);
    tcase_add_test(tc, labels_at_the_longest_inputs);
    tcase_add_test(tc, splits_and_tapes);
    return tc;
}
