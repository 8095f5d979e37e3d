# The Fabrica image: one static binary on an empty base, running as an unprivileged user.
#   docker build --build-arg VERSION=$(git describe --always --dirty) -t fabrica .   (or: make image)
# The entrypoint is the binary, so a platform's command is a subcommand: `migrate up` (release step),
# `serve` (the default), `worker`. docs/deploy.md has the rest.

# Build stage: the go build line is the Makefile's `make build` (TestDockerfileBuildsLikeMake holds the
# two equal), so the binary in the image is byte for byte the one a checkout builds at the same version.
FROM docker.io/library/golang:1.26-bookworm AS build
WORKDIR /src
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
# Only what the binary is built from (migrations, tiers, the OpenAPI document and its development viewer are
# embedded), so a change to the prose docs reuses the build.
COPY backend ./backend
COPY migrations ./migrations
COPY docs/embed.go docs/openapi.yaml ./docs/
COPY docs/viewer ./docs/viewer
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/fabrica ./backend/cmd/fabrica

# Final stage: nothing but the binary, the CA bundle (TLS to Paddle, Clerk, Resend, a managed Postgres) and
# the zoneinfo database. No shell and no package manager to exploit; the same image whatever builds it.
FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /usr/share/zoneinfo /usr/share/zoneinfo
COPY --from=build /out/fabrica /fabrica
# 65532 is distroless's "nonroot": no passwd entry is needed, and the binary writes no files.
USER 65532:65532
# The port PORT defaults to; a PaaS sets PORT and the service listens there.
EXPOSE 8080
ENTRYPOINT ["/fabrica"]
CMD ["serve"]
