// Package admin is the operator's read side: users, the audit trail, webhook forensics and stats.
package admin

import "gorm.io/gorm"

// Service answers the admin API's queries.
type Service struct {
	db *gorm.DB
}

// New builds the admin service.
func New(db *gorm.DB) *Service { return &Service{db: db} }
