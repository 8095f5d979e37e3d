# Sourced by the load benchmarks of `make bench` (scripts/bench.sh, bench-usage.sh, bench-ledger.sh): the
# helpers they share. Each script defines log (its own prefix) and sets bindir before calling sql.

# as_owner CMD...: run as the postgres user when root (initdb and pg_ctl refuse root).
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# die MSG: log it and stop.
die() { log "$*"; exit 1; }

# free_port FIRST: the first port from FIRST on that nothing listens on.
free_port() {
  local p
  for p in $(seq "$1" $(($1 + 50))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "no free port in $1..$(($1 + 50))"
}

# stop_pid PID: SIGTERM a background process and wait for it, if it still runs.
stop_pid() { if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill -TERM "$1"; wait "$1" 2>/dev/null || true; fi; }

# sql ARGS...: psql quiet, unaligned, tuples only, stopping on the first error.
sql() { "$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }

# machine_ticks: the machine's busy and total CPU ticks so far.
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }

# cpu_of KEY N: the Nth field of a phase's CPU record.
cpu_of() { cut -d' ' -f"$2" <<<"${cpu[$1]}"; }

# field NAME JSON: a number out of loadgen's JSON line.
field() { sed -E "s/.*\"$1\":([-0-9.e+]+).*/\1/" <<<"$2"; }

# ratio A B: A / B with two decimals (n/a when B is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# median VALUES...: the median.
median() { tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g | awk '{a[NR] = $1} END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# ge A B, le A B: numeric comparisons for the verdicts.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# verdict CMD...: PASS or FAIL as CMD succeeds.
verdict() { if "$@"; then printf 'PASS'; else printf 'FAIL'; fi; }
