package main

import (
	"folio/blog"
	"folio/filehost"
	"folio/sqlstore"
)

// Settings are the configured values of every runtime settings group, each
// type from the group's owner: the blog's site, post, render and ai, and the
// file host's upload.
type Settings struct {
	blog.Settings
	Upload filehost.UploadSettings
}

// defaultSettings are the owners' built-in values.
func defaultSettings() Settings {
	return Settings{Settings: blog.DefaultSettings(), Upload: filehost.DefaultUploadSettings()}
}

// settingsGroups are the groups of one settings registry.
type settingsGroups struct {
	reg    *sqlstore.Registry
	blog   blog.SettingsGroups
	upload *sqlstore.Group[filehost.UploadSettings]
}

// register builds a registry of every group with s as the configured values.
// The blog registers first, so the settings document reads site, post,
// render, ai, upload.
func (s Settings) register() settingsGroups {
	reg := sqlstore.NewRegistry()
	return settingsGroups{reg: reg, blog: blog.RegisterSettings(reg, s.Settings), upload: filehost.RegisterSettings(reg, s.Upload)}
}

// SetText sets one dotted key from its configuration-file text; the error
// is a *sqlstore.FieldError naming the key.
func (s *Settings) SetText(key, text string) error {
	g := s.register()
	if err := g.reg.SetText(key, text); err != nil {
		return err
	}
	*s = Settings{Settings: g.blog.Base(), Upload: g.upload.Base()}
	return nil
}

// Validate checks every group; the error is a *sqlstore.FieldError naming
// the first offending key.
func (s Settings) Validate() error {
	if err := s.Settings.Validate(); err != nil {
		return err
	}
	return s.Upload.Validate()
}

// settingKeys lists every runtime setting's dotted key, sorted.
func settingKeys() []string { return defaultSettings().register().reg.Keys() }
