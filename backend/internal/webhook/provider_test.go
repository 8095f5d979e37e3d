package webhook_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The envelope readers name who a delivery is about, so an erasure can find it: Paddle's signed checkout
// data, customer ids and a customer entity's address; Clerk's user and every address listed. Addresses are
// folded as users.email stores them. A value of an unexpected type inside data never refuses the delivery.
func TestEnvelopesNameTheirSubjects(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set(webhook.SvixIDHeader, "msg_1")
	for _, tc := range []struct {
		name string
		read func(http.Header, []byte) (webhook.Envelope, error)
		body string
		want []string
	}{
		{"paddle subscription", webhook.PaddleEnvelope, `{"event_id":"evt_1","event_type":"subscription.created","data":{"id":"sub_1",
			"customer_id":"ctm_1","custom_data":{"clerk_user_id":"user_1","email":"Ada@Example.COM","checkout_sig":"x"}}}`,
			[]string{"user_1", "ada@example.com", "ctm_1"}},
		{"paddle customer", webhook.PaddleEnvelope, `{"event_id":"evt_2","event_type":"customer.updated","data":{"id":"ctm_2","email":"Bo@Example.com"}}`,
			[]string{"ctm_2", "bo@example.com"}},
		{"paddle, odd custom_data", webhook.PaddleEnvelope, `{"event_id":"evt_3","event_type":"transaction.completed","data":{"customer_id":"ctm_3","custom_data":"a string"}}`,
			[]string{"ctm_3"}},
		{"paddle, nobody", webhook.PaddleEnvelope, `{"event_id":"evt_4","event_type":"price.created","data":{"id":"pri_1"}}`, []string{}},
		{"clerk user", webhook.SvixEnvelope, `{"type":"user.updated","data":{"id":"user_9","email_addresses":[{"email_address":"Old@Example.com"},
			{"email_address":"new@example.com"}]}}`, []string{"user_9", "old@example.com", "new@example.com"}},
		{"clerk email", webhook.SvixEnvelope, `{"type":"email.created","data":{"id":"ema_1","user_id":"user_9","to_email_address":"new@example.com"}}`,
			[]string{"user_9", "new@example.com"}},
		{"clerk, odd data", webhook.SvixEnvelope, `{"type":"user.updated","data":{"id":"user_9","email_addresses":"none"}}`, []string{"user_9"}},
	} {
		env, err := tc.read(h, []byte(tc.body))
		require.NoError(t, err, tc.name)
		require.NotEmpty(t, env.ID, tc.name)
		require.NotEmpty(t, env.Type, tc.name)
		require.Equal(t, tc.want, env.Subjects, tc.name)
	}
	_, err := webhook.PaddleEnvelope(h, []byte(`{"event_id":5,"event_type":"x"}`))
	require.Error(t, err, "the envelope's own fields still have to be right")
}
