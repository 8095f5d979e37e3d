package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// parser reads typed values from Viper and keeps the first error, so build reads as a flat list of fields.
type parser struct {
	v   *viper.Viper
	err error
}

func (p *parser) str(name string) string { return strings.TrimSpace(p.v.GetString(name)) }

func (p *parser) fail(name, reason string) {
	if p.err == nil {
		p.err = fieldErr(name, "%s", reason)
	}
}

func (p *parser) integer(name string) int {
	n, err := strconv.Atoi(p.str(name))
	if err != nil {
		p.fail(name, "must be an integer")
	}
	return n
}

// number reads a non-negative decimal number such as 2 or 0.5.
func (p *parser) number(name string) float64 {
	f, err := strconv.ParseFloat(p.str(name), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		p.fail(name, "must be a non-negative number such as 2 or 0.5")
	}
	return f
}

func (p *parser) boolean(name string) bool {
	b, err := strconv.ParseBool(p.str(name))
	if err != nil {
		p.fail(name, "must be true or false")
	}
	return b
}

func (p *parser) duration(name string) time.Duration {
	d, err := time.ParseDuration(p.str(name))
	if err != nil || d <= 0 {
		p.fail(name, "must be a positive duration such as 30s or 5m")
	}
	return d
}

// list splits a comma-separated value, dropping blanks, so "a, b," is [a b].
func (p *parser) list(name string) []string {
	var out []string
	for _, part := range strings.Split(p.str(name), ",") {
		if s := strings.TrimSpace(part); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// cidrs reads a list of CIDRs; a bare IP is that one address (/32 or /128).
func (p *parser) cidrs(name string) []*net.IPNet {
	var out []*net.IPNet
	for _, s := range p.list(name) {
		if !strings.Contains(s, "/") {
			if ip := net.ParseIP(s); ip != nil {
				bits := 128
				if ip.To4() != nil {
					bits = 32
				}
				s = fmt.Sprintf("%s/%d", s, bits)
			}
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			p.fail(name, fmt.Sprintf("has %q, which is not a CIDR such as 10.0.0.0/8 or an IP address", s))
			continue
		}
		out = append(out, n)
	}
	return out
}

// tooWideToTrust reports whether a TRUSTED_PROXIES range is wider than the widest private network of its
// family (10.0.0.0/8, fc00::/7): 0.0.0.0/0 and ::/0 trust everyone, and no proxy fleet needs more than a
// private network. An IPv4-mapped IPv6 range (::ffff:0.0.0.0/96) is judged as the IPv4 range it is,
// because net.IPNet.Contains matches IPv4 clients against it that way.
func tooWideToTrust(n *net.IPNet) bool {
	ones, bits := n.Mask.Size()
	if bits == 8*net.IPv6len && n.IP.To4() != nil {
		ones, bits = ones-96, 8*net.IPv4len
	}
	if bits == 8*net.IPv4len {
		return ones < 8
	}
	return ones < 7
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
