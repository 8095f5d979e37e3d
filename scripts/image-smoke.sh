#!/usr/bin/env bash
# `make image-smoke` (run by .ci/run): build the Dockerfile's image on this machine with podman and check
# that a container of it does what a PaaS asks: the release step (`migrate up`, twice), `serve` until
# /health/ready answers 200, `worker`, both as a non-root user, SIGTERM drains to exit 0. The container runs
# in production mode with throwaway secrets, so the boot guard passes exactly as on a real deploy. It also
# checks that the binary in the image is byte for byte the one `make build` produces.
#
# No registry is reachable here, so the base images the Dockerfile's FROM lines name are stood in for by
# local ones under the exact same names (built once, then reused: docker.io/library/golang:1.26-bookworm is
# a debootstrapped bookworm with ca-certificates plus this machine's Go), and the build runs with
# --pull=never. The same Dockerfile builds against Docker Hub anywhere else.
#
# Isolation: the build and every container run with --network=none. The build reads modules from this
# machine's module cache (filled by `go mod download` on the host; the build cannot fetch anything) and
# reuses the host's compile cache (same toolchain and flags: same results, seconds instead of minutes).
# Postgres is a throwaway cluster that listens on a unix socket only, mounted into the containers; the probes
# run curl inside the web container's network namespace (nsenter). Nothing listens on any host address.
#
# Root and Debian: installs podman, runc and debootstrap when missing. Bounded in time; everything it starts
# is removed on exit (the image localhost/fabrica:smoke and the stand-in base images are kept for next time).
#   IMAGE_SMOKE_CACHE=/var/cache/fabrica-image   IMAGE_SMOKE_TAG=localhost/fabrica:smoke
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
cache=${IMAGE_SMOKE_CACHE:-/var/cache/fabrica-image}
image=${IMAGE_SMOKE_TAG:-localhost/fabrica:smoke}
name=fabrica-smoke-$$
t0=$SECONDS

log() { echo "image-smoke: $*" >&2; }
die() { log "$*"; exit 1; }
lap() { log "$1 in $((SECONDS - ${2:-$t0}))s"; }

[ "$(id -u)" -eq 0 ] || die "run as root (podman as root, debootstrap, a postgres cluster through runuser)"

ensure_tools() {
  local missing=() pair
  for pair in podman:podman runc:runc debootstrap:debootstrap curl:curl nsenter:util-linux; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

# Debian's podman defaults to crun, which fails here on the host's cgroup layout and rlimits; runc with
# explicit ulimits works. Only this script's podman calls read this file.
containers_conf() {
  mkdir -p "$cache"
  cat >"$cache/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF=$cache/containers.conf
}

# base_images prints the images the Dockerfile's FROM lines name, without scratch and earlier stages.
base_images() {
  awk 'toupper($1) == "FROM" { if ($2 != "scratch" && !($2 in stage)) print $2; if (toupper($3) == "AS") stage[$4] = 1 }' Dockerfile
}

# stand_in REF builds a local image named REF. The only recipe is the official golang image's shape (Debian
# bookworm, Go in /usr/local/go, GOPATH=/go), from this machine's Go, whose version must match the tag.
stand_in() {
  local ref=$1 want have rootfs goroot t=$SECONDS
  case $ref in
    docker.io/library/golang:*-bookworm) ;;
    *) die "no local recipe for the base image $ref: pull or build it (podman image exists $ref)" ;;
  esac
  want=${ref#*golang:}
  want=${want%-bookworm}
  have=$(go env GOVERSION)
  have=${have#go}
  case $have in "$want" | "$want".*) ;; *) die "the Dockerfile builds with Go $want; this machine has $have" ;; esac
  rootfs=$cache/rootfs-bookworm
  if [ ! -e "$rootfs/.complete" ]; then
    log "debootstrap bookworm (minbase + ca-certificates) into $rootfs"
    rm -rf "$rootfs.tmp"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs.tmp" http://deb.debian.org/debian \
      >"$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; die "debootstrap failed"; }
    # As the official Debian images: no package downloads or lists left behind.
    rm -rf "$rootfs.tmp"/var/cache/apt/archives/*.deb "$rootfs.tmp"/var/lib/apt/lists/*
    mkdir -p "$rootfs.tmp/go"
    rm -rf "$rootfs" && mv "$rootfs.tmp" "$rootfs"
    touch "$rootfs/.complete"
  fi
  goroot=$(go env GOROOT)
  # One tar stream: the rootfs, then GOROOT renamed to usr/local/go (setup-go's GOROOT is not /usr/local/go).
  tar -c -C "$rootfs" --exclude=./.complete . \
    -C "$(dirname "$goroot")" --transform "s|^$(basename "$goroot")|usr/local/go|S" "$(basename "$goroot")" |
    podman import --quiet \
      --change 'ENV PATH=/usr/local/go/bin:/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "ENV GOLANG_VERSION=$have" --change 'ENV GOTOOLCHAIN=local' --change 'ENV GOPATH=/go' \
      --change 'WORKDIR /go' --change 'LABEL org.fabrica.stand-in=scripts/image-smoke.sh' \
      - "$ref" >/dev/null
  lap "stand-in $ref built" "$t"
}

# From /: the postgres user may not be allowed into the caller's working directory.
as_postgres() { (cd / && runuser -u postgres -- "$@"); }

work=""
cleanup() {
  local code=$?
  podman rm -f -t 0 "$name-web" "$name-worker" "$name-files" >/dev/null 2>&1 || true
  if [ -n "$work" ] && [ -s "$work/pg/PG_VERSION" ]; then
    as_postgres "$bindir/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  fi
  [ -n "$work" ] && rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_tools
containers_conf
bindir=$(scripts/ensure-postgres.sh)
# /tmp, not $TMPDIR: the postgres user and the container's user must reach the socket directory.
work=$(mktemp -d /tmp/fabrica-image-smoke.XXXXXX)
chmod 755 "$work"

# --- the image ---------------------------------------------------------------------------------------
(
  flock 9 # two runs at once build a stand-in once
  for ref in $(base_images); do
    if podman image exists "$ref"; then log "base image $ref: present"; else stand_in "$ref"; fi
  done
) 9>"$cache/lock"

t=$SECONDS
go mod download
old=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
# --layers=false: nothing to reuse that the two caches do not already give, and no intermediate images pile
# up; the replaced smoke image is removed below.
make --no-print-directory image ENGINE=podman IMAGE="$image" IMAGE_FLAGS="--pull=never --network=none --layers=false \
  -v $(go env GOMODCACHE):/go/pkg/mod:ro -v $(go env GOCACHE):/root/.cache/go-build" >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log" >&2; die "podman build failed"; }
new=$(podman image inspect --format '{{.Id}}' "$image")
if [ -n "$old" ] && [ "$old" != "$new" ]; then podman rmi "$old" >/dev/null 2>&1 || true; fi
lap "image $image built" "$t"

cfg=$(podman image inspect --format '{{.Config.User}}|{{json .Config.Entrypoint}}|{{json .Config.Cmd}}|{{json .Config.ExposedPorts}}' "$image")
[ "$cfg" = '65532:65532|["/fabrica"]|["serve"]|{"8080/tcp":{}}' ] || die "image config: $cfg"

# The image holds the binary, the CA bundle and zoneinfo, and nothing else (no shell).
podman create --name "$name-files" "$image" >/dev/null
podman export "$name-files" >"$work/rootfs.tar"
podman cp "$name-files:/fabrica" "$work/fabrica-image"
podman rm "$name-files" >/dev/null
tar -tf "$work/rootfs.tar" | grep -v -E '^(etc/|etc/ssl/|etc/ssl/certs/|etc/ssl/certs/ca-certificates.crt|fabrica|usr/|usr/share/|usr/share/zoneinfo/.*)$' \
  >"$work/extra" || true
[ ! -s "$work/extra" ] || die "unexpected files in the image: $(head -n 5 "$work/extra" | tr '\n' ' ')"
for f in fabrica etc/ssl/certs/ca-certificates.crt usr/share/zoneinfo/UTC usr/share/zoneinfo/Europe/Paris; do
  grep -qx "$f" <(tar -tf "$work/rootfs.tar") || die "$f is missing from the image"
done
make --no-print-directory build BIN="$work/fabrica-make" >/dev/null
if ! cmp -s "$work/fabrica-make" "$work/fabrica-image"; then
  go version -m "$work/fabrica-make" "$work/fabrica-image" >&2 || true
  die "the image's binary differs from make build's"
fi
log "image: $(($(podman image inspect --format '{{.Size}}' "$image") / 1048576)) MB; /fabrica == make build's binary" \
  "(sha256 $(sha256sum "$work/fabrica-image" | cut -c1-16)...)"

# --- a database ----------------------------------------------------------------------------------------
t=$SECONDS
mkdir -p "$work/pg" "$work/sock"
chown postgres:postgres "$work/pg" "$work/sock"
chmod 700 "$work/pg"
chmod 755 "$work/sock"
as_postgres "$bindir/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions >/dev/null
as_postgres "$bindir/pg_ctl" -D "$work/pg" -w -t 60 -l "$work/pg/server.log" \
  -o "-c listen_addresses='' -c unix_socket_directories=$work/sock -c fsync=off" start >/dev/null ||
  { cat "$work/pg/server.log" >&2; die "postgres did not start"; }
"$bindir/psql" -X -q -h "$work/sock" -U postgres -d postgres -c "CREATE DATABASE fabrica"
lap "postgres $("$bindir/psql" -X -A -t -h "$work/sock" -U postgres -d fabrica -c 'SHOW server_version') on a unix socket" "$t"

# --- the release step, web and worker --------------------------------------------------------------------
# Production, as a PaaS runs it: every secret the boot guard asks for (docs/deploy.md), random per run.
rand() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
cat >"$work/env" <<EOF
APP_ENV=production
DATABASE_URL=postgres://postgres@/fabrica?host=/run/postgresql&sslmode=disable
PADDLE_WEBHOOK_SECRET=pdl_ntfset_$(rand)
CLERK_WEBHOOK_SECRET=whsec_$(rand | head -c 48 | base64 -w0)
CLERK_SECRET_KEY=sk_test_$(rand)
CLERK_AUTHORIZED_PARTIES=https://app.example.com
CORS_ORIGINS=https://app.example.com
PUBLIC_BASE_URL=https://api.example.com
PADDLE_API_KEY=pdl_sdbx_apikey_$(rand)
CHECKOUT_SIGNING_SECRET=$(rand)
EMAIL_UNSUBSCRIBE_SECRET=$(rand)
EMAIL_DRIVER=resend
RESEND_API_KEY=re_$(rand)
EMAIL_FROM=Fabrica <hello@example.com>
COMPANY_LEGAL_NAME=Fabrica Smoke Test Ltd
METRICS_TOKEN=$(rand)
WORKER_API_KEYS=$(rand)
ERASURE_TOMBSTONE_KEY=$(rand)
SERVE_WORKERS=false
EOF
ctr() { podman run --network=none --env-file "$work/env" -v "$work/sock:/run/postgresql" "$@"; }

t=$SECONDS
out=$(ctr --rm "$image" migrate up 2>&1) || { echo "$out" >&2; die "migrate up failed in the container"; }
grep -qE '^applied [1-9][0-9]* migration' <<<"$out" || die "migrate up: $out"
out=$(ctr --rm "$image" migrate up 2>&1) || { echo "$out" >&2; die "a second migrate up failed"; }
grep -q '^applied 0 migration' <<<"$out" || die "a second migrate up applied something: $out"
lap "release step (migrate up, then again as a no-op)" "$t"
# Render's dockerCommand form names the binary; it must reach the subcommand whether or not the platform
# keeps the ENTRYPOINT in front of it.
for form in "version" "/fabrica version"; do
  # shellcheck disable=SC2086 # the form is split into arguments on purpose
  out=$(podman run --rm --network=none "$image" $form 2>&1) || die "'$form' failed in the container: $out"
  [[ $out == "fabrica "* ]] || die "'$form': $out"
done

t=$SECONDS
ctr -d --name "$name-web" "$image" >/dev/null
ctr -d --name "$name-worker" "$image" worker >/dev/null
pid=$(podman inspect --format '{{.State.Pid}}' "$name-web")
probe() { nsenter --net="/proc/$pid/ns/net" curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' "http://127.0.0.1:8080$1" 2>/dev/null || true; }
code=""
for _ in $(seq 1 120); do
  code=$(probe /health/ready)
  [ "$code" = 200 ] && break
  [ "$(podman inspect --format '{{.State.Running}}' "$name-web")" = true ] || { podman logs "$name-web" >&2; die "serve exited"; }
  sleep 0.5
done
[ "$code" = 200 ] || { podman logs "$name-web" | tail -n 20 >&2; die "/health/ready answered ${code:-nothing} for 60s"; }
lap "serve: /health/ready 200 ($(tr -d '\n' <"$work/body"))" "$t"
grep -qi '^strict-transport-security:' "$work/headers" || die "no HSTS header: not running as production?"
[ "$(probe /health)" = 200 ] || die "/health is not 200"

for c in web worker; do
  p=$(podman inspect --format '{{.State.Pid}}' "$name-$c")
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$p/status")
  [ "$uid" = 65532 ] || die "$c runs as uid $uid, not 65532"
done
for _ in $(seq 1 60); do
  podman logs "$name-worker" 2>&1 | grep -q '"working jobs"' && break
  [ "$(podman inspect --format '{{.State.Running}}' "$name-worker")" = true ] || { podman logs "$name-worker" >&2; die "worker exited"; }
  sleep 0.5
done
podman logs "$name-worker" 2>&1 | grep -q '"working jobs"' || { podman logs "$name-worker" | tail -n 20 >&2; die "the worker did not start"; }
log "web and worker run as uid 65532; the worker works jobs"

t=$SECONDS
podman stop -t 30 "$name-web" "$name-worker" >/dev/null
for c in web worker; do
  code=$(podman inspect --format '{{.State.ExitCode}}' "$name-$c")
  [ "$code" = 0 ] || { podman logs "$name-$c" | tail -n 20 >&2; die "$c exited $code after SIGTERM"; }
done
lap "SIGTERM: web and worker drained, exit 0" "$t"
lap "ok"
