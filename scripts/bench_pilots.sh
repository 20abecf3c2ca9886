#!/bin/sh
# The benchmark's recipe pilots (docs/benchmark.md, "The recipe"): one
# seed of a few (task, column) pairs trained under each candidate recipe
# with the reference code's protocol (fresh sentences every step, the
# randomized forms drawn as its code draws them, Adam without decay or
# warm-up, the gradient clipped at 1, dropout (0.1, the reference's, unless
# the recipe says), embeddings drawn at
# 0.02 and scaled by sqrt(d_model), ALiBi's encoder form, a learned
# table drawn at 1 as Haiku's Embed draws it), then tested at
# every input length 1..M. One row per pilot on stdout:
#   recipe,task,column,seconds,acc_at_N,acc_1_to_N,acc_N+1_to_M
# (seconds of wall time, training and the three tests; an accuracy is
# per token over the blanks of 64 tapes a length)
# Usage: scripts/bench_pilots.sh [OUT_DIR] (default build/pilots); run it
# with OMP_NUM_THREADS=1 to time one core. Needs build/train and
# build/evaluate (make).
set -eu
out=${1:-build/pilots}
mkdir -p "$out"
# the protocol of the run before the paper's range (tests to 25, PyTorch's
# first draws): docs/benchmark/pilots.csv was made at it, and the page says so
N=10
M=25
RANGE=256

# recipe name: layers d_model heads d_ff steps lr dropout (PILOT_RECIPES
# replaces the list: one recipe a line)
recipes=${PILOT_RECIPES:-'
page 2 32 4 128 2000 1e-3 0.1
page10k 2 32 4 128 10000 1e-3 0.1
paper4k 5 64 8 256 4000 3e-4 0.1
'}
tasks=${PILOT_TASKS:-"reverse_string duplicate_string binary_addition compute_sqrt solve_equation"}
columns=${PILOT_COLUMNS:-"rope:random sinusoidal:random"}

echo "recipe,task,column,seconds,acc_at_N,acc_1_to_N,acc_N+1_to_M"
echo "$recipes" | while read -r name layers d heads ff steps lr dropout; do
    [ -n "$name" ] || continue
    for task in $tasks; do
        for col in $columns; do
            pe=${col%%:*}
            form=${col#*:}
            id="$name-$task-$pe-$form"
            rm -f "$out/$id.eval.err"
            rand=""
            [ "$form" = random ] && rand="--random-positions $RANGE --random-draw ruoss"
            extra=""
            [ "$pe" = alibi ] && extra="--alibi-slopes ruoss"
            [ "$pe" = learned ] && extra="--pe-init-std 1"
            start=$(date +%s)
            # shellcheck disable=SC2086
            build/train --task "$task" --pe "$pe" $extra --min-len 1 --max-len "$N" \
                --layers "$layers" --d-model "$d" --heads "$heads" --d-ff "$ff" \
                --steps "$steps" --lr "$lr" --batch 32 --eval-every "$steps" \
                --batches by-length --train-draw fresh --weight-decay 0 --warmup 0 \
                --clip 1 --dropout "$dropout" --embed-std 0.02 --scale-embed --seed 1 \
                $rand --out "$out/$id.ckpt" >"$out/$id.train.txt" 2>&1
            acc() { # accuracy on inputs of $1..$2 words, 64 a length
                # shellcheck disable=SC2086
                build/evaluate --model "$out/$id.ckpt" --task "$task" --min-len "$1" \
                    --max-len "$2" --examples $((64 * ($2 - $1 + 1))) \
                    ${rand:+--random-positions $RANGE --draws 1} 2>>"$out/$id.eval.err" |
                    sed -n 's/^accuracy: //p'
            }
            at=$(acc "$N" "$N")
            seen=$(acc 1 "$N")
            past=$(acc $((N + 1)) "$M")
            echo "$name,$task,$pe $form,$(date +%s | awk -v s="$start" '{printf "%.0f", $1 - s}'),$at,$seen,$past"
        done
    done
done
