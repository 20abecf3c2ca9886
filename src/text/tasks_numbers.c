/* Delétang et al.'s (ICLR 2023) arithmetic tasks, as the code of Ruoss et
 * al. (ACL 2023, google-deepmind/randomized_positional_encodings)
 * defines them: modular arithmetic (mod 5) without and with brackets,
 * solving a modular equation, and binary addition, multiplication and
 * square root. tasks_chomsky.c has the tasks on strings and stacks, and
 * says how the two follow the reference; data/README.md shows an example
 * of each. */
#include <string.h>

#include "tape.h"

#define MOD 5
static const char *const DIGIT[MOD] = {"0", "1", "2", "3", "4"};
static const char *const BIT[2] = {"0", "1"};

/* ---- modular arithmetic ---- */

/* The operators, in the reference's order for modular_arithmetic_brackets
 * (+ and - without multiplication, for solve_equation). */
enum { PLUS, MINUS, TIMES };
static const char *const OP[3] = {"+", "-", "*"};

static size_t mod_apply(size_t op, size_t a, size_t b) {
    return op == PLUS ? (a + b) % MOD : op == MINUS ? (a + MOD - b) % MOD : a * b % MOD;
}

/* Numbers 0..4 and operators + - * alternating, uniform, evaluated with *
 * before + and - (the reference's _evaluate_expression: each - negates the
 * number after it, products first, then the sum mod 5). An even length n
 * gives n - 1 words, as the reference makes every length odd. */
static size_t modular_arithmetic_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    size_t words = n % 2 ? n : n - 1;
    size_t x = rng_below(r, MOD), sum = 0, sign = PLUS, product = x;
    tape_in(&t, DIGIT[x]);
    for (size_t i = 1; i < words; i += 2) {
        size_t op = rng_below(r, 3);
        x = rng_below(r, MOD);
        tape_in(&t, OP[op]);
        tape_in(&t, DIGIT[x]);
        if (op == TIMES) {
            product = product * x % MOD;
        } else {
            sum = mod_apply(sign, sum, product);
            sign = op;
            product = x;
        }
    }
    tape_out(&t, DIGIT[mod_apply(sign, sum, product)]);
    return t.n;
}

/* The reference's generate_one_expression_and_result: an expression of
 * exactly len words onto the tape, and its value mod 5. Up to 4 words: d,
 * -d, (d), (-d); from 5: (L op R) with L's length uniform in 1..len-4. */
static size_t expression(Rng *r, Tape *t, size_t len, size_t n_ops) {
    if (len <= 4) {
        bool bracket = len >= 3, minus = len % 2 == 0;
        size_t d = rng_below(r, MOD);
        if (bracket)
            tape_in(t, "(");
        if (minus)
            tape_in(t, OP[MINUS]);
        tape_in(t, DIGIT[d]);
        if (bracket)
            tape_in(t, ")");
        return minus ? mod_apply(MINUS, 0, d) : d;
    }
    size_t left = 1 + rng_below(r, len - 4);
    tape_in(t, "(");
    size_t a = expression(r, t, left, n_ops);
    size_t op = rng_below(r, n_ops);
    tape_in(t, OP[op]);
    size_t b = expression(r, t, len - left - 3, n_ops);
    tape_in(t, ")");
    return mod_apply(op, a, b);
}

/* With + - *, as the reference's constants.py asks (mult=True). */
static size_t modular_arithmetic_brackets_example(Rng *r, size_t n, const char **w,
                                                  const char **lab) {
    Tape t = tape_start(w, lab);
    tape_out(&t, DIGIT[expression(r, &t, n, 3)]);
    return t.n;
}

/* An expression of n - 2 words with + and - (the reference's default,
 * mult=False), one digit replaced by x, then = and its value; the label is
 * the digit x stands for, the one solution (x's coefficient is 1 or -1).
 * The digit is found as the reference finds it: from a place uniform in
 * the expression, the first digit at or after it, wrapping around. Below
 * length 3 the reference gives n zeros and the label 0. */
static size_t solve_equation_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    if (n < 3) {
        for (size_t i = 0; i < n; i++)
            tape_in(&t, DIGIT[0]);
        tape_out(&t, DIGIT[0]);
        return t.n;
    }
    size_t value = expression(r, &t, n - 2, 2), at = rng_below(r, n - 2), x = MOD;
    while (x == MOD) {
        for (size_t d = 0; d < MOD; d++)
            if (w[at] == DIGIT[d])
                x = d;
        if (x == MOD)
            at = (at + 1) % (n - 2);
    }
    w[at] = "x";
    tape_in(&t, "=");
    tape_in(&t, DIGIT[value]);
    tape_out(&t, DIGIT[x]);
    return t.n;
}

BENCH_TASK(modular_arithmetic, TASK_REGULAR, one_blank,
           "numbers 0..4 and + - * alternating -> the value mod 5, * first (Deletang et al.)");
BENCH_TASK(modular_arithmetic_brackets, TASK_DCF, one_blank,
           "a bracketed expression of 0..4 and + - * -> its value mod 5 (Deletang et al.)");
BENCH_TASK(solve_equation, TASK_DCF, one_blank,
           "an equation mod 5 with + - and brackets, one digit hidden as x -> x "
           "(Deletang et al.)");

/* ---- binary numbers ---- */

/* Numbers of up to 544 bits, more than a tape of TASK_MAX_LEN words holds,
 * in 32-bit limbs, least significant first. */
#define LIMBS 17
typedef struct {
    uint32_t l[LIMBS];
} Big;

static unsigned big_bit(const Big *a, size_t i) { return a->l[i / 32] >> (i % 32) & 1u; }

static void big_set_bit(Big *a, size_t i) { a->l[i / 32] |= 1u << (i % 32); }

/* Bits without leading zeros: 0 for zero. */
static size_t big_len(const Big *a) {
    size_t n = 32 * LIMBS;
    while (n > 0 && !big_bit(a, n - 1))
        n--;
    return n;
}

/* Uniform in 1..2^k - 1, as the reference's random.randint(1, 2**k - 1):
 * k uniform bits, drawn again when all are 0. */
static void big_draw(Big *a, Rng *r, size_t k) {
    do {
        memset(a, 0, sizeof *a);
        for (size_t i = 0; i < k; i++)
            if (rng_below(r, 2))
                big_set_bit(a, i);
    } while (big_len(a) == 0);
}

static void big_add(Big *s, const Big *a, const Big *b) {
    uint64_t carry = 0;
    for (size_t i = 0; i < LIMBS; i++) {
        carry += (uint64_t)a->l[i] + b->l[i];
        s->l[i] = (uint32_t)carry;
        carry >>= 32;
    }
}

/* The product's low LIMBS limbs; the callers' products fit. */
static void big_mul(Big *p, const Big *a, const Big *b) {
    Big out = {{0}};
    for (size_t i = 0; i < LIMBS; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; i + j < LIMBS; j++) {
            carry += (uint64_t)a->l[i] * b->l[j] + out.l[i + j];
            out.l[i + j] = (uint32_t)carry;
            carry >>= 32;
        }
    }
    *p = out;
}

static int big_cmp(const Big *a, const Big *b) {
    for (size_t i = LIMBS; i-- > 0;)
        if (a->l[i] != b->l[i])
            return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

/* floor(sqrt(a)), one bit at a time from the top, as Python's math.isqrt. */
static void big_isqrt(Big *root, const Big *a) {
    memset(root, 0, sizeof *root);
    for (size_t b = (big_len(a) + 1) / 2 + 1; b-- > 0;) {
        Big c = *root, square;
        big_set_bit(&c, b);
        big_mul(&square, &c, &c);
        if (big_cmp(&square, a) <= 0)
            *root = c;
    }
}

/* binary_addition and binary_multiplication: two numbers in little-endian
 * binary, of lengths drawn as the reference draws them (the first 1..n-2
 * bits, the second the rest but for the operator), each uniform in 1..2^k
 * - 1 with zeros filling its length; the output is the result in
 * little-endian binary without leading zeros, then TAPE_END, then
 * padding, '_' as the reference's accuracy mask leaves it unscored
 * (TaskOptions.pad_loss puts it in the loss, TAPE_PAD_LOSS), to `outputs`
 * symbols (n + 1 for the sum, n for the product). Below length
 * 3 the reference writes a number below 2^n - 1 without an operator, and
 * gives for the sum that number (0 as "0") and for the product nothing
 * (length 1) or "0" (length 2). */
static size_t binary_op(Rng *r, size_t n, const char **w, const char **lab, size_t op) {
    Tape t = tape_start(w, lab);
    size_t outputs = op == TIMES ? n : n + 1;
    if (n <= 2) {
        size_t v = rng_below(r, ((size_t)1 << n) - 1);
        for (size_t i = 0; i < n; i++)
            tape_in(&t, BIT[v >> i & 1]);
        if (op == PLUS)
            do {
                tape_out(&t, BIT[v & 1]);
                v >>= 1;
            } while (v);
        else if (n == 2)
            tape_out(&t, BIT[0]);
    } else {
        size_t la = 1 + rng_below(r, n - 2), lb = n - 1 - la;
        Big a, b, result;
        big_draw(&a, r, la);
        big_draw(&b, r, lb);
        for (size_t i = 0; i < la; i++)
            tape_in(&t, BIT[big_bit(&a, i)]);
        tape_in(&t, OP[op]);
        for (size_t i = 0; i < lb; i++)
            tape_in(&t, BIT[big_bit(&b, i)]);
        if (op == TIMES)
            big_mul(&result, &a, &b);
        else
            big_add(&result, &a, &b);
        for (size_t i = 0, len = big_len(&result); i < len; i++)
            tape_out(&t, BIT[big_bit(&result, i)]);
    }
    tape_out(&t, TAPE_END);
    while (t.n < n + outputs)
        tape_out(&t, DATA_NO_LABEL);
    return t.n;
}

static size_t binary_addition_example(Rng *r, size_t n, const char **w, const char **lab) {
    return binary_op(r, n, w, lab, PLUS);
}

static size_t binary_multiplication_example(Rng *r, size_t n, const char **w,
                                            const char **lab) {
    return binary_op(r, n, w, lab, TIMES);
}

/* A number uniform in 1..2^n - 1 in big-endian binary, n bits with leading
 * zeros -> floor of its square root in big-endian binary, ceil(n/2) bits
 * with leading zeros. */
static size_t compute_sqrt_example(Rng *r, size_t n, const char **w, const char **lab) {
    Tape t = tape_start(w, lab);
    Big a, root;
    big_draw(&a, r, n);
    big_isqrt(&root, &a);
    for (size_t i = n; i-- > 0;)
        tape_in(&t, BIT[big_bit(&a, i)]);
    for (size_t i = (n + 1) / 2; i-- > 0;)
        tape_out(&t, BIT[big_bit(&root, i)]);
    return t.n;
}

static size_t half_blanks(size_t n) { return (n + 1) / 2; }

BENCH_TASK_PAD(binary_addition, TASK_CS, n_plus_one_blanks,
               "two little-endian binary numbers a + b -> a + b little-endian, then $ "
               "(Deletang et al.)", TAPE_PAD_LOSS);
BENCH_TASK_PAD(binary_multiplication, TASK_CS, n_blanks,
               "two little-endian binary numbers a * b -> a * b little-endian, then $ "
               "(Deletang et al.)", TAPE_PAD_LOSS);
BENCH_TASK(compute_sqrt, TASK_CS, half_blanks,
           "a big-endian binary number -> the floor of its square root, ceil(n/2) bits "
           "(Deletang et al.)");
