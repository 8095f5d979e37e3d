package account_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

var unsubCfg = account.Config{UnsubscribeSecret: "test-unsubscribe-secret", PublicBaseURL: "https://app.test"}

// tokenOf takes the token out of u's unsubscribe link, as a mail client would.
func tokenOf(t *testing.T, svc *account.Service, u models.User) string {
	t.Helper()
	link, err := url.Parse(svc.UnsubscribeURL(u.ID))
	require.NoError(t, err)
	require.Equal(t, "https://app.test/api/v1/email/unsubscribe", link.Scheme+"://"+link.Host+link.Path)
	return link.Query().Get("t")
}

// v1Token mints a token in the first (v1, unencrypted) format, as links already in inboxes carry it.
func v1Token(secret, clerkID string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("unsubscribe|v1|" + clerkID))
	return base64.RawURLEncoding.EncodeToString([]byte(clerkID)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// flipped changes one character of s in the middle.
func flipped(s string) string {
	b := []byte(s)
	i := len(b) / 2
	b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
	return string(b)
}

func TestUnsubscribeRejectsBadTokens(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	victim := seedUser(t, db, "user_victim", time.Time{})
	seedUser(t, db, "user_mallory", time.Time{})
	otherKey := account.New(account.Deps{}, account.Config{UnsubscribeSecret: "another-secret", PublicBaseURL: "https://app.test"})
	valid := tokenOf(t, svc, victim)
	sealed := strings.TrimPrefix(valid, "v2.")
	v1 := v1Token(unsubCfg.UnsubscribeSecret, "user_victim")
	victimID, _, _ := strings.Cut(v1, ".")
	_, malloryMAC, _ := strings.Cut(v1Token(unsubCfg.UnsubscribeSecret, "user_mallory"), ".")

	for name, tok := range map[string]string{
		"empty": "", "v2 empty": "v2.", "v2 garbage": "v2.!!??", "v2 padded": valid + "==", "v2 truncated": valid[:len(valid)-4],
		"v2 tampered": flipped(valid), "v2 sealed with another key": tokenOf(t, otherKey, victim),
		"v2 without its prefix": sealed, "v2 with another prefix": "v3." + sealed,
		"v1 no mac": victimID, "v1 garbage": "!!.??", "v1 three parts": v1 + ".x",
		"v1 forged with another key": v1Token("another-secret", "user_victim"),
		"v1 tampered mac":            flipped(v1),
		"v1 moved to another user":   victimID + "." + malloryMAC,
	} {
		err := svc.Unsubscribe(context.Background(), tok, "192.0.2.1")
		require.ErrorIs(t, err, account.ErrBadUnsubscribeToken, name)
		require.ErrorIs(t, svc.VerifyUnsubscribeToken(tok), account.ErrBadUnsubscribeToken, name)
	}
	var consenting int
	require.NoError(t, db.Raw(`SELECT count(*) FROM users WHERE marketing_consent_given`).Scan(&consenting).Error)
	require.Equal(t, 2, consenting, "no bad token changes anything")
	require.Zero(t, countAudit(t, db, account.ActionUnsubscribed, "user_victim"))
}

func TestUnsubscribeWithdrawsConsentOnce(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	u := seedUser(t, db, "user_u", time.Time{})
	seedUser(t, db, "user_bystander", time.Time{})
	tok := tokenOf(t, svc, u)
	require.NoError(t, svc.VerifyUnsubscribeToken(tok))
	for range 2 {
		require.NoError(t, svc.Unsubscribe(context.Background(), tok, "192.0.2.7"))
	}
	var got struct {
		MarketingConsentGiven  bool
		MarketingConsentSource string
	}
	require.NoError(t, db.Raw(`SELECT marketing_consent_given, marketing_consent_source FROM users WHERE clerk_user_id = 'user_u'`).Scan(&got).Error)
	require.False(t, got.MarketingConsentGiven)
	require.Equal(t, account.ConsentSourceUnsubscribe, got.MarketingConsentSource)
	var row struct{ Details, IP string }
	require.NoError(t, db.Raw(`SELECT details::text, host(ip) AS ip FROM audit_logs WHERE action = ?`, account.ActionUnsubscribed).Scan(&row).Error)
	require.JSONEq(t, `{"via":"one_click_link"}`, row.Details)
	require.Equal(t, "192.0.2.7", row.IP)
	require.Equal(t, 1, countAudit(t, db, account.ActionUnsubscribed, "user_u"), "the repeat writes nothing")

	var bystander bool
	require.NoError(t, db.Raw(`SELECT marketing_consent_given FROM users WHERE clerk_user_id = 'user_bystander'`).Scan(&bystander).Error)
	require.True(t, bystander)

	erased := tokenOf(t, svc, models.User{ID: uuid.New()})
	require.NoError(t, svc.Unsubscribe(context.Background(), erased, ""), "an erased user's link still answers OK")
	require.NoError(t, svc.Unsubscribe(context.Background(), v1Token(unsubCfg.UnsubscribeSecret, "user_erased"), ""))
	var audits int
	require.NoError(t, db.Raw(`SELECT count(*) FROM audit_logs`).Scan(&audits).Error)
	require.Equal(t, 1, audits, "and writes nothing")
}

// Links sent before v2 carry v1 tokens; RFC 8058 wants them to keep working.
func TestV1LinksStillUnsubscribe(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	seedUser(t, db, "user_old_link", time.Time{})
	tok := v1Token(unsubCfg.UnsubscribeSecret, "user_old_link")
	require.NoError(t, svc.VerifyUnsubscribeToken(tok))
	require.NoError(t, svc.Unsubscribe(context.Background(), tok, "192.0.2.8"))
	var given bool
	require.NoError(t, db.Raw(`SELECT marketing_consent_given FROM users WHERE clerk_user_id = 'user_old_link'`).Scan(&given).Error)
	require.False(t, given)
	require.Equal(t, 1, countAudit(t, db, account.ActionUnsubscribed, "user_old_link"))
}

func TestMarketingMailCarriesTheUnsubscribeLink(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	u := seedUser(t, db, "user_m", time.Time{})
	link := svc.UnsubscribeURL(u.ID)
	m := email.WithUnsubscribe(email.Message{To: "m@example.com", Subject: "News", Text: "hi"}, link)
	require.Equal(t, "<"+link+">", m.Headers["List-Unsubscribe"])
	require.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
	require.True(t, strings.HasPrefix(tokenOf(t, svc, u), "v2."), "only v2 tokens are issued")
}

func TestNoSecretRefusesEveryToken(t *testing.T) {
	t.Parallel()
	keyed, _ := newService(t, unsubCfg)
	svc, _ := newService(t, account.Config{PublicBaseURL: "https://app.test"})
	u := models.User{ID: uuid.New(), ClerkUserID: "user_x"}
	for name, tok := range map[string]string{
		"own v2": tokenOf(t, svc, u), "keyed v2": tokenOf(t, keyed, u), "v1 under the empty key": v1Token("", "user_x"),
	} {
		require.ErrorIs(t, svc.Unsubscribe(context.Background(), tok, ""), account.ErrBadUnsubscribeToken, name)
	}
}

// revealsBase64 reports whether s holds secret base64-encoded in any alphabet and at any alignment, or
// any dot-separated part of s decodes to bytes containing it.
func revealsBase64(s string, secret []byte) bool {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		for shift := range 3 {
			e := enc.EncodeToString(append(make([]byte, shift), secret...))
			// Drop the characters that mix in the padding bytes or the next byte.
			core := e[(shift*4+2)/3 : len(e)-2]
			if strings.Contains(s, core) {
				return true
			}
		}
		for part := range strings.SplitSeq(s, ".") {
			if b, err := enc.DecodeString(strings.TrimRight(part, "=")); err == nil && bytes.Contains(b, secret) {
				return true
			}
		}
	}
	return false
}

// The hole "an unsubscribe link that acts on GET or reveals the Clerk id" (docs/security.md): an unsubscribe link
// travels through mail providers, forwarding and link scanners; its token must not tell any of them who the user is at
// Clerk (or which row they are here).
func TestTokenDoesNotRevealTheClerkID(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	u := seedUser(t, db, "user_2NNEqL2nrIRdJ194ndJqAHwEfxC", time.Time{})
	tok := tokenOf(t, svc, u)
	require.NotEmpty(t, tok)
	for what, secret := range map[string][]byte{
		"clerk id": []byte(u.ClerkUserID), "user id bytes": u.ID[:], "user id text": []byte(u.ID.String()),
	} {
		require.NotContains(t, tok, string(secret), what)
		require.NotContains(t, strings.ToLower(tok), hex.EncodeToString(secret), what)
		require.False(t, revealsBase64(tok, secret), "the token reveals the %s: %s", what, tok)
	}
	require.NotEqual(t, tok, tokenOf(t, svc, u), "two links of one user are not even linkable to each other")
	require.NoError(t, svc.Unsubscribe(context.Background(), tok, "192.0.2.9"))
	require.Equal(t, 1, countAudit(t, db, account.ActionUnsubscribed, u.ClerkUserID))
}
