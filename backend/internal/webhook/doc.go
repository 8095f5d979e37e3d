// Package webhook is the idempotent ingest mechanism shared by every provider: verify the signature on the
// raw bytes, read the envelope, then in one transaction claim (provider, event_id), run the provider's
// handler inside a savepoint and archive the delivery with its outcome. It knows nothing about what an
// event means: the policy packages (account, billing) supply the handlers. A new provider is a Verifier,
// an envelope reader and a handler table. See docs/webhooks.md.
package webhook
