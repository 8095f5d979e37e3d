package paddleapi

import (
	"context"
	"errors"
	"fmt"

	paddle "github.com/PaddleHQ/paddle-go-sdk/v4"
)

// EnsureCustomer returns the id (ctm_...) of the Paddle customer with this email, creating it when there is
// none. The caller binds the id to its user: the server owns that binding, so a checkout completed under
// someone else's email can never hand this user that person's customer. Paddle refuses a second customer
// with the same email (customer_already_exists); a concurrent create that wins the race is then found.
func (c *Client) EnsureCustomer(ctx context.Context, email string) (string, error) {
	const op = "ensure customer"
	if id, err := c.findCustomer(ctx, email); err != nil || id != "" {
		return id, err
	}
	cctx, a := withAttempts(ctx)
	cust, err := c.sdk.CreateCustomer(cctx, &paddle.CreateCustomerRequest{Email: email})
	switch {
	case err == nil && cust != nil && cust.ID != "":
		return cust.ID, nil
	case errors.Is(err, paddle.ErrCustomerAlreadyExists):
		id, err := c.findCustomer(ctx, email)
		if err == nil && id == "" {
			err = fmt.Errorf("%s: paddle says the customer exists but does not list it", op)
		}
		return id, err
	case err == nil:
		return "", fmt.Errorf("%s: paddle response has no customer id", op)
	}
	return "", c.translate(cctx, op, a, err)
}

// findCustomer returns the id of the customer whose email is exactly email, "" when there is none.
func (c *Client) findCustomer(ctx context.Context, email string) (string, error) {
	const op = "find customer"
	fctx, a := withAttempts(ctx)
	res, err := c.sdk.ListCustomers(fctx, &paddle.ListCustomersRequest{Email: []string{email}})
	if err != nil {
		return "", c.translate(fctx, op, a, err)
	}
	r := res.Next(fctx)
	if err := r.Err(); err != nil {
		return "", c.translate(fctx, op, a, err)
	}
	if !r.Ok() || r.Value() == nil {
		return "", nil
	}
	return r.Value().ID, nil
}
