# expect STATUS TEXT COMMAND...: runs COMMAND and counts a failure (in `failures`, which the
# sourcing script defines) unless it exits with STATUS and its output contains TEXT.
expect() {
  local want=$1 text=$2; shift 2
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [[ $status -ne $want || $out != *"$text"* ]]; then
    echo "FAIL: $* -> status $status (expected $want), output: $out (expected to contain: $text)"
    failures=$((failures + 1))
  fi
}
