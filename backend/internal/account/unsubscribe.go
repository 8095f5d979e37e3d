package account

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
)

// Unsubscribe tokens are base64url(clerk_user_id) "." base64url(HMAC-SHA256(secret, "unsubscribe|v1|" +
// clerk_user_id)), unpadded. The id travels in the token, so verifying needs no lookup; the MAC binds it,
// so a token cannot be forged or moved to another user. There is no expiry: an old newsletter's link must
// keep working (RFC 8058 asks for that, and withdrawing consent is never harmful).
const unsubscribeDomain = "unsubscribe|v1|"

// Strict: a token has exactly one spelling, so a tampered one never decodes to the same bytes.
var b64 = base64.RawURLEncoding.Strict()

// unsubscribeToken returns the one-click unsubscribe token of a user.
func (s *Service) unsubscribeToken(clerkUserID string) string {
	return b64.EncodeToString([]byte(clerkUserID)) + "." + b64.EncodeToString(s.unsubscribeMAC(clerkUserID))
}

// UnsubscribeURL is the link marketing emails carry (email.WithUnsubscribe puts it in the RFC 8058
// List-Unsubscribe headers); it accepts GET and the one-click POST.
func (s *Service) UnsubscribeURL(clerkUserID string) string {
	return s.cfg.PublicBaseURL + "/api/v1/email/unsubscribe?t=" + url.QueryEscape(s.unsubscribeToken(clerkUserID))
}

func (s *Service) unsubscribeMAC(clerkUserID string) []byte {
	m := hmac.New(sha256.New, []byte(s.cfg.UnsubscribeSecret))
	m.Write([]byte(unsubscribeDomain + clerkUserID))
	return m.Sum(nil)
}

// verifyUnsubscribeToken returns the clerk user id a token names, or ErrBadUnsubscribeToken. Without a
// secret every token is refused: an empty HMAC key would let anyone mint them.
func (s *Service) verifyUnsubscribeToken(token string) (string, error) {
	idPart, macPart, ok := strings.Cut(token, ".")
	if !ok || s.cfg.UnsubscribeSecret == "" {
		return "", ErrBadUnsubscribeToken
	}
	id, err1 := b64.DecodeString(idPart)
	mac, err2 := b64.DecodeString(macPart)
	if err1 != nil || err2 != nil || len(id) == 0 {
		return "", ErrBadUnsubscribeToken
	}
	// hmac.Equal is constant-time: timing must not reveal how much of a guessed MAC was right.
	if !hmac.Equal(mac, s.unsubscribeMAC(string(id))) {
		return "", ErrBadUnsubscribeToken
	}
	return string(id), nil
}
