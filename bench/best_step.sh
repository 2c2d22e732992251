# Sourced by the step benchmarks: best_step BINARY REPEATS ARGS... prints the fastest 'step:'
# (seconds) of REPEATS runs of BINARY ARGS (other tenants' noise only ever adds time).
best_step() {
  local bin=$1 repeats=$2 b="" s
  shift 2
  for ((i = 0; i < repeats; ++i)); do
    s=$("$bin" "$@" | sed -n 's/^step: //p')
    b=$(awk -v a="$b" -v s="$s" 'BEGIN { print (a == "" || s < a) ? s : a }')
  done
  echo "$b"
}
