package filehost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MediaImage is the kind of ImportMedia that takes images only.
const MediaImage = "image"

// ImportMedia stores a file another part of Folio fetched for ownerID (the
// blog's import bringing an old site's images home,
// docs/export-import.md#bringing-images-home) through the pipeline of any
// upload: the upload settings' size and type rules, metadata stripping,
// de-duplication, the owner's quota, the storage and its intents. kind
// MediaImage refuses anything that is not an image; "" takes any type the
// settings allow. name is the file's name (its extension helps only when
// the content does not say its type).
//
// The file is unlisted: served to anyone holding its link, listed
// nowhere, whatever the owner's default visibility, since the blog's
// readers must see it. When the owner already has a file of the same
// content that anyone may read and that never expires, that file is the
// answer and nothing is added (so two addresses of one picture make one
// file). The answer is the file's short link as the upload API gives it,
// without the origin (/i/{hash}): the blog links to it on its own site.
// A refusal is an error whose text says why, for a person to read; when
// reading r fails, its error is returned.
func (s *Service) ImportMedia(ctx context.Context, ownerID, name, kind string, r io.Reader) (string, error) {
	set := s.settings.Get(ctx).Upload
	src := &sourceReader{r: r}
	in, err := s.receive(ctx, name, src, set, -1)
	if err != nil {
		s.metrics.UploadsFailed.Inc()
		if src.err != nil {
			return "", src.err
		}
		return "", mediaError(err)
	}
	if kind == MediaImage && in.fileType != "image" {
		in.w.Abort()
		s.metrics.UploadsFailed.Inc()
		return "", fmt.Errorf("it is not an image but %s", in.mimetype)
	}
	// One at a time from here, so that two addresses of the same content
	// fetched at once find each other's file rather than add two.
	s.importMu.Lock()
	defer s.importMu.Unlock()
	if !set.AllowDuplicate {
		link, err := s.ownCopy(ctx, ownerID, in.md5, in.sha256)
		if err != nil || link != "" {
			in.w.Abort()
			return link, err
		}
	}
	rec, err := s.save(ctx, ownerID, in, uploadOptions{visibility: visUnlisted}, set)
	if err != nil {
		s.metrics.UploadsFailed.Inc()
		return "", mediaError(err)
	}
	rec.setLinks("")
	return rec.Links.URL, nil
}

// mediaError words the pipeline's refusals for the person who reads the
// import's report.
func mediaError(err error) error {
	switch {
	case errors.Is(err, errFileTooLarge):
		return errors.New("it is larger than the file host's upload.max_file_size")
	case errors.Is(err, errQuotaFull):
		return errors.New("the owner's storage quota is full")
	}
	return err
}

// sourceReader keeps the first error of reading r, which the pipeline
// would otherwise report as an interrupted upload.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
	return n, err
}

// MediaExists reports whether link, as ImportMedia gave it, still serves
// its file to anyone: false once every record of its content is deleted,
// expired or restricted.
func (s *Service) MediaExists(ctx context.Context, link string) (bool, error) {
	prefix, h, ok := strings.Cut(strings.TrimPrefix(link, "/"), "/")
	if !ok {
		return false, nil
	}
	hash, ok := linkHash(h)
	if !ok {
		return false, nil
	}
	v, _ := s.fileChanges()
	t, ok, err := s.targetByHash(ctx, hash, true, v)
	if err != nil || !ok {
		return false, err
	}
	return t.owners == nil && (prefix == "f" || linkPrefix(t.fileType) == prefix), nil
}
