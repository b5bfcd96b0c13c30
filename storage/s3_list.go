package storage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// listResult is a page of ListObjectsV2.
type listResult struct {
	IsTruncated bool `xml:"IsTruncated"`
	Contents    []struct {
		Key          string    `xml:"Key"`
		Size         int64     `xml:"Size"`
		LastModified time.Time `xml:"LastModified"`
	} `xml:"Contents"`
	NextContinuationToken string `xml:"NextContinuationToken"`
}

// uploadsResult is a page of ListMultipartUploads.
type uploadsResult struct {
	IsTruncated bool `xml:"IsTruncated"`
	Uploads     []struct {
		Key       string    `xml:"Key"`
		UploadID  string    `xml:"UploadId"`
		Initiated time.Time `xml:"Initiated"`
	} `xml:"Upload"`
	NextKeyMarker      string `xml:"NextKeyMarker"`
	NextUploadIDMarker string `xml:"NextUploadIdMarker"`
}

// tmpPrefix is the object-key folder of content being written.
func (s *S3) tmpPrefix() string { return s.cfg.Prefix + tmpDir + "/" }

// listObjects calls fn with every object under prefix, page by page.
func (s *S3) listObjects(ctx context.Context, prefix string, fn func(key string, size int64, mod time.Time) error) error {
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "prefix": {prefix}, "max-keys": {strconv.Itoa(s.PageSize)}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		var page listResult
		if err := s.doXML(ctx, http.MethodGet, "", q, nil, nil, &page); err != nil {
			return err
		}
		for _, c := range page.Contents {
			if err := fn(c.Key, c.Size, c.LastModified); err != nil {
				return err
			}
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return nil
		}
		token = page.NextContinuationToken
	}
}

// listUploads calls fn with every multipart upload under prefix.
func (s *S3) listUploads(ctx context.Context, prefix string, fn func(key, id string, initiated time.Time) error) error {
	keyMarker, idMarker := "", ""
	for {
		q := url.Values{"uploads": {""}, "prefix": {prefix}, "max-uploads": {strconv.Itoa(s.PageSize)}}
		if keyMarker != "" {
			q.Set("key-marker", keyMarker)
			q.Set("upload-id-marker", idMarker)
		}
		var page uploadsResult
		if err := s.doXML(ctx, http.MethodGet, "", q, nil, nil, &page); err != nil {
			return err
		}
		for _, u := range page.Uploads {
			if err := fn(u.Key, u.UploadID, u.Initiated); err != nil {
				return err
			}
		}
		if !page.IsTruncated || page.NextKeyMarker == "" {
			return nil
		}
		keyMarker, idMarker = page.NextKeyMarker, page.NextUploadIDMarker
	}
}

// List lists the objects under the prefix but those being written.
func (s *S3) List(ctx context.Context, fn func(key string, size int64) error) error {
	tmp := s.tmpPrefix()
	var fnErr error
	err := s.listObjects(ctx, s.cfg.Prefix, func(key string, size int64, _ time.Time) error {
		if strings.HasPrefix(key, tmp) {
			return nil
		}
		if fnErr = fn(strings.TrimPrefix(key, s.cfg.Prefix), size); fnErr != nil {
			return fnErr
		}
		return nil
	})
	if err != nil && fnErr != nil && errors.Is(err, fnErr) {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("storage: list: %w", err)
	}
	return nil
}

// Temps lists the temporary objects and the multipart uploads still open
// under the temporary folder; an upload's size is what its parts hold,
// which the listing does not say, so 0.
func (s *S3) Temps(ctx context.Context) ([]Temp, error) {
	tmp := s.tmpPrefix()
	byName := map[string]int{}
	out := []Temp{}
	add := func(key string, size int64, mod time.Time) error {
		name := strings.TrimPrefix(key, tmp)
		if name == "" || strings.Contains(name, "/") {
			return nil
		}
		if i, ok := byName[name]; ok {
			out[i].Size += size
			return nil
		}
		byName[name] = len(out)
		out = append(out, Temp{Name: name, Instance: tempInstance(name), Size: size, ModTime: mod})
		return nil
	}
	if err := s.listObjects(ctx, tmp, add); err != nil {
		return nil, fmt.Errorf("storage: list temporary files: %w", err)
	}
	if err := s.listUploads(ctx, tmp, func(key, _ string, at time.Time) error { return add(key, 0, at) }); err != nil {
		return nil, fmt.Errorf("storage: list temporary files: %w", err)
	}
	return out, nil
}

// RemoveTemp aborts the multipart uploads of the temporary key name and
// deletes its object.
func (s *S3) RemoveTemp(ctx context.Context, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return ErrInvalidKey
	}
	key := s.tmpPrefix() + name
	err := s.abortUploads(ctx, key)
	if err == nil {
		_, err = s.doDiscard(ctx, http.MethodDelete, key, nil, nil, nil)
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("storage: remove temporary file: %w", err)
	}
	return nil
}

// abortUploads aborts the multipart uploads of key until a listing finds
// none. A part still on its way when an upload is aborted can bring the
// upload back on some servers (versitygw does; S3 itself asks for a second
// abort once parts in flight are done), so each round that aborted
// something waits a moment and looks again, a few rounds at most.
func (s *S3) abortUploads(ctx context.Context, key string) error {
	const rounds = 4
	for round := 0; ; round++ {
		found := false
		err := s.listUploads(ctx, key, func(k, id string, _ time.Time) error {
			if k != key {
				return nil
			}
			found = true
			return s.abortUpload(ctx, k, id)
		})
		if err != nil || !found || round == rounds-1 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// abortUpload aborts one multipart upload; one already gone is fine.
func (s *S3) abortUpload(ctx context.Context, key, id string) error {
	_, err := s.doDiscard(ctx, http.MethodDelete, key, url.Values{"uploadId": {id}}, nil, nil)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}
