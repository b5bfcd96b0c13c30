package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"folio/auth"
	"folio/blog"
	"folio/filehost"
	"folio/httpx/outbound"
	"folio/sqlstore"
)

// importMediaFlags are folio import's flags for bringing images home
// (docs/export-import.md#bringing-images-home).
type importMediaFlags struct {
	media              *bool
	from, owner, allow *string
}

func defineMediaFlags(fs *flag.FlagSet) importMediaFlags {
	return importMediaFlags{
		media: fs.Bool("media", false, "bring the images and files the content references home into the file host, and link to them there"),
		from:  fs.String("from", "", "with -media: the old site's `URL`, where paths of the content are found (Ghost exports do not say it)"),
		owner: fs.String("owner", "", "with -media: the administrator `NAME` who owns the files (default: admin.username's)"),
		allow: fs.String("fetch-allow", "", "with -media: hosts, addresses and CIDR prefixes to download from although they are private (`LIST`, added to import.fetch_allow)"),
	}
}

// check returns what the flags allow to fetch besides import.fetch_allow,
// or the usage error.
func (f importMediaFlags) check() (outbound.Allowlist, error) {
	if !*f.media && (*f.from != "" || *f.owner != "" || *f.allow != "") {
		return outbound.Allowlist{}, errors.New("-from, -owner and -fetch-allow go with -media")
	}
	allow, err := outbound.ParseAllowlist(*f.allow)
	if err != nil {
		return outbound.Allowlist{}, fmt.Errorf("-fetch-allow: %v", err)
	}
	return allow, nil
}

// mediaExtras gives a command's blog the file host, as a server builds it
// with the configured storage, so that the import brings images home
// owned by the administrator ownerName names ("": the configured one),
// whose id it sets in owner. The command registers as a process of the
// site while it stores files, so that no janitor takes its work for a dead
// process's. The database must be one folio serve has set up: the files
// need their owner.
func mediaExtras(cfg *Config, logger *slog.Logger, ownerName string, allow outbound.Allowlist, owner *string) blogExtras {
	return func(ctx context.Context, db *sqlstore.DB, settings settingsGroups, d *blog.Deps) (func(), error) {
		authSvc, err := auth.Open(ctx, db, auth.Config{AdminUsername: cfg.AdminUsername, SessionSecret: cfg.SessionSecret, Logger: logger})
		if err != nil {
			return nil, fmt.Errorf("bringing images home: %w", err)
		}
		id := authSvc.AdminID()
		if ownerName != "" {
			u, err := authSvc.UserByName(ctx, ownerName)
			switch {
			case errors.Is(err, sqlstore.ErrNotFound):
				return nil, fmt.Errorf("-owner: no user %q", ownerName)
			case err != nil:
				return nil, err
			case u.Role != auth.RoleAdmin || u.Status != auth.StatusActive:
				return nil, fmt.Errorf("-owner: %s is not an active administrator", u.Username)
			}
			id = u.ID
		}
		instances, inst, unregister, err := registerProcess(ctx, db, logger)
		if err != nil {
			return nil, err
		}
		fhDeps, err := fileHostDeps(ctx, cfg, db, authSvc, settings.upload, inst, instances, logger)
		if err != nil {
			unregister(context.WithoutCancel(ctx))
			return nil, err
		}
		fh, err := filehost.Open(ctx, fhDeps)
		if err != nil {
			unregister(context.WithoutCancel(ctx))
			return nil, err
		}
		// The images brought home get their sizes, as a server's saves give them.
		d.Media, d.Images, d.FetchAllow = fh, imageSizes{fh}, cfg.FetchAllow.Join(allow)
		*owner = id
		return func() { unregister(context.Background()) }, nil
	}
}
