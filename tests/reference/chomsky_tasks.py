#!/usr/bin/python3
"""Re-derives the labels of Delétang et al.'s tasks from the files
`build/make_data` wrote, with the logic of the reference code
(google-deepmind/randomized_positional_encodings, tasks/regular, tasks/dcf,
tasks/cs and experiments/utils.py) re-written in plain Python: no JAX, no
NumPy. Each example's input words are mapped back to the reference's token
ids, the reference's output (and, for binary_addition, binary_multiplication
and stack_manipulation, its accuracy mask) is computed from them, and the
file's labels must be that output on the blanks the mask keeps and '_' on
the others, with '_' on every input word and one blank per output symbol
(the tape of make_model_with_empty_targets). A file made with --pad-loss
labels the blanks the mask drops '_=X' instead, X the reference's output
there (its padding, the class 0: '0'), which the loss trains on.

    /usr/bin/python3 tests/reference/chomsky_tasks.py DIR [DIR ...]

where each DIR holds the train.txt, valid.txt and test.txt of one task (the
task is read from the files' first comment). Prints one line per file;
exits 1 when any label disagrees. The tests do not run it (it needs
nothing beyond the Python standard library).
"""
import math
import os
import re
import sys

# ---- the reference's token ids, from our words (data/README.md) ----

BITS = {"0": 0, "1": 1}
DIGITS5 = {str(d): d for d in range(5)}
MOD_ARITH = dict(DIGITS5, **{"+": 5, "-": 6, "*": 7})  # modulus + OP_BY_CHARACTER
STACK = {"0": 0, "1": 1, "pop": 2, "push0": 3, "push1": 4}
MISSING = {"0": 0, "1": 1, "x": 2, ".": 3}
BINARY_ADD = {"0": 0, "1": 1, "+": 2}
BINARY_MUL = {"0": 0, "1": 1, "*": 2}
OUT_BITS_END = {0: "0", 1: "1", 2: "$"}  # output classes with the termination token


def ids(words, alphabet):
    for w in words:
        if w not in alphabet:
            raise ValueError(f"'{w}' is not in the task's alphabet {sorted(alphabet)}")
    return [alphabet[w] for w in words]


def int32(v):
    """JAX's default integers are 32-bit: products wrap around."""
    return (v + 2**31) % 2**32 - 2**31


# ---- regular (tasks/regular/*.py) ----

def even_pairs(words):
    s = ids(words, BITS)
    unequal = [a ^ b for a, b in zip(s[:-1], s[1:])]
    return [str(sum(unequal) % 2)], None


def parity_check(words):
    s = ids(words, BITS)
    return [str(sum(s) % 2)], None


def cycle_navigation(words):
    actions = ids(words, {"0": 0, "1": 1, "2": 2})
    return [str(sum(a - 1 for a in actions) % 5)], None


def modular_arithmetic(words):
    """_evaluate_expression: _replace_blanks, _replace_subtractions,
    _perform_multiplications, then the sum mod 5, in int32."""
    expr = ids(words, MOD_ARITH)
    if len(expr) % 2 != 1:
        raise ValueError("the reference makes every expression odd in length")
    modulus = 5
    if len(expr) >= 2:
        mask = [e == modulus + 1 for e in expr]  # '-'
        expr = [modulus if m else e for e, m in zip(expr, mask)]  # '-' -> '+'
        expr = expr[:2] + [e * (1 - 2 * m) for e, m in zip(expr[2:], mask[1:-1])]
    plus = [int(e == modulus) for e in expr]
    term_ids = [sum(plus[: i + 1]) for i in range(len(expr))][::2]
    n_terms = len(expr) // 2 + 1
    products = [1] * n_terms
    exact = [1] * n_terms
    for value, term in zip(expr[::2], term_ids):
        products[term] = int32(products[term] * value)
        exact[term] *= value
    valid = [int(i <= term_ids[-1]) for i in range(n_terms)]
    label = int32(sum(p * v for p, v in zip(products, valid))) % modulus
    true = sum(p * v for p, v in zip(exact, valid)) % modulus
    if label != true:
        raise ValueError(f"int32 overflow in the reference: it gives {label}, the value is {true}")
    return [str(label)], None


# ---- deterministic context-free (tasks/dcf/*.py) ----

def reverse_string(words):
    return [str(b) for b in ids(words, BITS)[::-1]], None


def stack_manipulation(words):
    expression = ids(words, STACK)
    length = len(expression)
    stack_length = 0
    while stack_length < length and expression[stack_length] < 2:
        stack_length += 1
    if length == 1:
        result = list(expression)
    else:
        if not 1 <= stack_length < length:
            raise ValueError("the reference draws a stack of 1..length-1 bits, then actions")
        current = list(expression[:stack_length])
        for action in expression[stack_length:]:
            if action == 2:  # POP
                if current:
                    current.pop()
            elif action in (3, 4):  # PUSH a 0 (case 3) or a 1 (case 4)
                current.append(action - 3)
        result = current[::-1]
    result += [2]
    result += [0] * (length + 1 - len(result))
    return [OUT_BITS_END[r] for r in result], termination_mask(result)


def termination_mask(target):
    """accuracy_mask: positions up to and including the first largest class."""
    end = target.index(max(target))
    return [i <= end for i in range(len(target))]


def check_expression(words, allowed):
    if not all(w in allowed for w in words):
        raise ValueError(f"a word outside {sorted(allowed)}")
    return "".join(words)


def modular_arithmetic_brackets(words):
    """The reference builds (left op right) % 5 with the string; evaluating
    the string and taking it mod 5 gives the same value."""
    expr = check_expression(words, set("01234+-*()"))
    return [str(eval(expr) % 5)], None  # digits, + - * and brackets only


def solve_equation(words):
    if len(words) < 3:  # the reference's fixed batch of zeros
        if any(w != "0" for w in words):
            raise ValueError("below length 3 the reference's input is zeros")
        return ["0"], None
    if words[-2] != "=" or words.count("x") != 1:
        raise ValueError("the reference writes EXPR = VALUE with one digit as x")
    lhs = check_expression(words[:-2], set("01234+-()x"))
    rhs = int(words[-1])
    solutions = [v for v in range(5) if eval(lhs.replace("x", str(v))) % 5 == rhs]
    if len(solutions) != 1:
        raise ValueError(f"the equation has the solutions {solutions}")
    return [str(solutions[0])], None


# ---- context-sensitive (tasks/cs/*.py) ----

def duplicate_string(words):
    s = ids(words, BITS)
    return [str(b) for b in s + s], None


def missing_duplicate_string(words):
    s = ids(words, MISSING)
    length = len(s)
    if length == 1:  # the reference's fixed example
        if s != [1]:
            raise ValueError("at length 1 the reference's input is 1")
        return ["1"], None
    half = length // 2
    duplicated = s[: 2 * half]
    if s[2 * half:] != [3] * (length % 2) or duplicated.count(2) != 1:
        raise ValueError("the reference writes a string twice, one bit as 2, padding 3")
    index = duplicated.index(2)
    first, second = duplicated[:half], duplicated[half:]
    for i in range(half):
        if 2 not in (first[i], second[i]) and first[i] != second[i]:
            raise ValueError("the two halves differ")
    return [str(duplicated[index - half] if index >= half else duplicated[index + half])], None


def odds_first(words):
    s = ids(words, BITS)
    return [str(b) for b in s[1::2] + s[::2]], None


def to_binary(number, length, little_endian=True):
    """numbers_to_fixed_length_binary for one number."""
    bits = f"{number:b}".zfill(length)
    return [int(b) for b in (bits[::-1] if little_endian else bits)]


def from_little_endian(bits):
    return int("".join(str(b) for b in bits[::-1]), 2) if bits else 0


def binary_operation(words, alphabet, times):
    expression = ids(words, alphabet)
    length = len(expression)
    if length <= 2:
        if 2 in expression:
            raise ValueError("below length 3 the reference writes one number")
        number = from_little_endian(expression)
        if not number < 2**length - 1:
            raise ValueError("the reference draws the number from 0..2^length - 2")
        result = [0] * (length - 1) if times else to_binary(number, 0)
    else:
        if expression.count(2) != 1:
            raise ValueError("the reference writes first_number, 2, second_number")
        at = expression.index(2)
        n, m = from_little_endian(expression[:at]), from_little_endian(expression[at + 1:])
        if not (1 <= at <= length - 2 and n >= 1 and m >= 1):
            raise ValueError("the reference draws both numbers from 1..2^len - 1")
        result = to_binary(n * m if times else n + m, 0)
    if times:
        result = result + [2] + [0] * (length - 1 - len(result))
    else:
        result = result + [2] + [0] * (length - len(result))
    return [OUT_BITS_END[r] for r in result], termination_mask(result)


def binary_addition(words):
    return binary_operation(words, BINARY_ADD, False)


def binary_multiplication(words):
    return binary_operation(words, BINARY_MUL, True)


def compute_sqrt(words):
    s = ids(words, BITS)
    number = int("".join(str(b) for b in s), 2)
    if number < 1:
        raise ValueError("the reference draws the number from 1..2^length - 1")
    root = to_binary(math.isqrt(number), math.ceil(len(s) / 2), little_endian=False)
    return [str(b) for b in root], None


def bucket_sort(words):
    return [str(v) for v in sorted(ids(words, DIGITS5))], None


TASKS = {f.__name__: f for f in (
    even_pairs, modular_arithmetic, parity_check, cycle_navigation, stack_manipulation,
    reverse_string, modular_arithmetic_brackets, solve_equation, duplicate_string,
    missing_duplicate_string, odds_first, binary_addition, binary_multiplication,
    compute_sqrt, bucket_sort)}


def check_file(path):
    """(task, examples, shortest and longest input, scored blanks, errors)."""
    task, examples, errors, scored, lengths = None, 0, [], 0, []
    pad_loss = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            found = re.match(r"# posenc make_data: (\w+) ", line)
            if found:
                task = found.group(1)
            if line.startswith("# made by: ") and "--pad-loss" in line.split():
                pad_loss = True
            if not line.strip() or line.startswith("#") or line.startswith("labels:"):
                if line.startswith("labels:") and line.strip() != "labels: token":
                    errors.append(f"{path}:{number}: the tape has a label per word")
                continue
            if task not in TASKS:
                raise SystemExit(f"{path}: not a file make_data wrote for one of "
                                 f"{', '.join(TASKS)}")
            sentence, labels = line.split("\t")
            words, labels = sentence.split(), labels.split()
            blank = words.index("?") if "?" in words else len(words)
            inputs, blanks = words[:blank], words[blank:]
            examples += 1
            lengths.append(len(inputs))
            try:
                if any(w != "?" for w in blanks) or not blanks:
                    raise ValueError("the tape is the input, then blanks '?'")
                if any(lab != "_" for lab in labels[:blank]):
                    raise ValueError("an input word has a label; each has '_'")
                want, mask = TASKS[task](inputs)
                if mask is not None:
                    want = [w if keep else "_=" + w if pad_loss else "_"
                            for w, keep in zip(want, mask)]
                if labels[blank:] != want:
                    raise ValueError(f"the blanks are labelled {' '.join(labels[blank:])}; "
                                     f"the reference gives {' '.join(want)}")
                scored += sum(not w.startswith("_") for w in want)
            except ValueError as e:
                errors.append(f"{path}:{number}: {sentence}: {e}")
    return task, examples, min(lengths or [0]), max(lengths or [0]), scored, errors


def main(dirs):
    bad = 0
    for d in dirs:
        for split in ("train", "valid", "test"):
            path = os.path.join(d, split + ".txt")
            task, n, lo, hi, scored, errors = check_file(path)
            for e in errors[:5]:
                print(e)
            bad += len(errors)
            verdict = "every label is the reference's" if not errors else \
                f"{len(errors)} examples disagree"
            print(f"{task} {split}: {n} examples, inputs of {lo} to {hi} words, {scored} scored "
                  f"blanks: {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    sys.exit(main(sys.argv[1:]))
