package account_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

var unsubCfg = account.Config{UnsubscribeSecret: "test-unsubscribe-secret", PublicBaseURL: "https://app.test"}

// tokenOf takes the token out of a user's unsubscribe link, as a mail client would.
func tokenOf(t *testing.T, svc *account.Service, clerkID string) string {
	t.Helper()
	u, err := url.Parse(svc.UnsubscribeURL(clerkID))
	require.NoError(t, err)
	require.Equal(t, "https://app.test/api/v1/email/unsubscribe", u.Scheme+"://"+u.Host+u.Path)
	return u.Query().Get("t")
}

func TestUnsubscribeRejectsBadTokens(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	seedUser(t, db, "user_victim", time.Time{})
	seedUser(t, db, "user_mallory", time.Time{})
	valid := tokenOf(t, svc, "user_victim")
	victimID, victimMAC, _ := strings.Cut(valid, ".")
	_, malloryMAC, _ := strings.Cut(tokenOf(t, svc, "user_mallory"), ".")
	otherKey := account.New(account.Deps{}, account.Config{UnsubscribeSecret: "another-secret", PublicBaseURL: "https://app.test"})
	flipped := []byte(victimMAC)
	flipped[5] = map[bool]byte{true: 'B', false: 'A'}[flipped[5] == 'A']

	for name, tok := range map[string]string{
		"empty": "", "no mac": victimID, "garbage": "!!.??", "three parts": valid + ".x",
		"forged with another key": tokenOf(t, otherKey, "user_victim"),
		"tampered mac":            victimID + "." + string(flipped),
		"moved to another user":   victimID + "." + malloryMAC,
	} {
		err := svc.Unsubscribe(context.Background(), tok, "192.0.2.1")
		require.ErrorIs(t, err, account.ErrBadUnsubscribeToken, name)
	}
	var consenting int
	require.NoError(t, db.Raw(`SELECT count(*) FROM users WHERE marketing_consent_given`).Scan(&consenting).Error)
	require.Equal(t, 2, consenting, "no bad token changes anything")
	require.Zero(t, countAudit(t, db, account.ActionUnsubscribed, "user_victim"))
}

func TestUnsubscribeWithdrawsConsentOnce(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, unsubCfg)
	seedUser(t, db, "user_u", time.Time{})
	seedUser(t, db, "user_bystander", time.Time{})
	tok := tokenOf(t, svc, "user_u")
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
	require.NoError(t, svc.Unsubscribe(context.Background(), tokenOf(t, svc, "user_erased"), ""), "an erased user's link still answers OK")
}

func TestMarketingMailCarriesTheUnsubscribeLink(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t, unsubCfg)
	link := svc.UnsubscribeURL("user_m")
	m := email.WithUnsubscribe(email.Message{To: "m@example.com", Subject: "News", Text: "hi"}, link)
	require.Equal(t, "<"+link+">", m.Headers["List-Unsubscribe"])
	require.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
	require.NotEmpty(t, tokenOf(t, svc, "user_m"))
}

func TestNoSecretRefusesEveryToken(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t, account.Config{PublicBaseURL: "https://app.test"})
	require.ErrorIs(t, svc.Unsubscribe(context.Background(), tokenOf(t, svc, "user_x"), ""), account.ErrBadUnsubscribeToken)
}
