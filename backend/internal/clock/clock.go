// Package clock is the one source of the current time for every decision the service takes: grants,
// expiries, the reconciler's deadlines, renewals, cancellations, deletion grace, rate windows, session
// tokens, webhook signatures and checkout signatures. app builds one Clock and hands its Now to every
// package; domain code never calls time.Now itself (TestDomainCodeReadsTheClock), so a test can fix the
// time and development can move it (`fabrica dev clock`, Dev).
//
// Measurements (how long a query took, the age of a cache) are not decisions and may read the machine's
// time; the guard test lists each such use with its reason.
package clock

import "time"

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// System is the machine's clock: staging and production always, development while no offset is set.
type System struct{}

// Now is time.Now.
func (System) Now() time.Time { return time.Now() }

// Func adapts a function to a Clock.
type Func func() time.Time

// Now calls f.
func (f Func) Now() time.Time { return f() }

// Or is now, or the system clock's Now when now is nil: the default of packages whose callers may pass none
// (their own tests). app always passes its clock.
func Or(now func() time.Time) func() time.Time {
	if now == nil {
		return System{}.Now
	}
	return now
}
