package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// S3Config names a bucket on an S3-compatible server (its keys are the
// storage.s3.* settings of the README and docs/scaling.md#moving-to-s3).
type S3Config struct {
	Endpoint, Bucket, Region, AccessKey, SecretKey, Prefix string
	// PathStyle addresses the bucket as the first path segment
	// (endpoint/bucket/key) rather than as a host name (bucket.endpoint).
	PathStyle bool
	// Redirect asks the file host to answer GETs with a presigned URL
	// instead of the bytes (the s3 row's Redirect); the store itself does
	// not use it.
	Redirect bool
}

// Sizes of the S3 protocol and of this store's writer.
const (
	// DefaultPartSize is the writer's part: at most two are in memory per
	// upload (one filling, one being sent), whatever the file's size.
	DefaultPartSize = 8 << 20
	minPartSize     = 5 << 20 // S3's smallest part but the last
	// DefaultCopyLimit is CopyObject's limit; beyond it the writer copies
	// by UploadPartCopy, in parts of DefaultCopyPartSize.
	DefaultCopyLimit    = 5 << 30
	DefaultCopyPartSize = 1 << 30
	// DefaultPageSize is S3's own largest page of ListObjectsV2.
	DefaultPageSize = 1000
)

// S3 keeps content as objects in a bucket of an S3-compatible server, under
// the same keys as Local, below cfg.Prefix. Writers upload in parts to a
// temporary key under "<prefix>.tmp/" and copy to the final key at Commit
// (docs/filehost.md#s3).
type S3 struct {
	cfg      S3Config
	endpoint *url.URL
	client   *http.Client
	sig      signer
	instance string
	// PartSize and PageSize are the writer's part and List's page; tests
	// lower them so that many parts and pages stay quick.
	PartSize int
	PageSize int
	// CopyLimit is the largest object Commit copies in one CopyObject;
	// above it, UploadPartCopy copies CopyPartSize bytes at a time (at
	// least minPartSize: S3 refuses smaller parts but the last). Tests
	// lower both so that the part copy runs on small content.
	CopyLimit    int64
	CopyPartSize int64
	// bufs holds part buffers for reuse across uploads; it is shared by
	// the copies WithInstance makes.
	bufs *sync.Pool
	now  func() time.Time
}

var _ Store = (*S3)(nil)

// s3Driver is the row of the s3 driver: objects in a bucket (storage.s3.*),
// which Check asks at start and which can serve by presigned URL. folio
// restore does not write into it: a bucket is filled from a restored
// folder by folio storage migrate (docs/backup.md#s3).
func s3Driver() Driver {
	return Driver{
		Name: "s3", Where: "storage.s3.*",
		Validate: func(cfg Config) error {
			if problems := s3Problems(cfg.S3); len(problems) > 0 {
				return fmt.Errorf("storage.s3: %s", strings.Join(problems, "; "))
			}
			return nil
		},
		Open: func(cfg Config) (Store, error) {
			s, err := NewS3(cfg.S3, nil)
			if err != nil {
				return nil, err
			}
			if cfg.Instance != "" {
				s = s.WithInstance(cfg.Instance)
			}
			return s, nil
		},
		Redirect: func(cfg Config) bool { return cfg.S3.Redirect },
	}
}

// NewS3 checks cfg and returns a store on it; it makes no request (Check
// does). client nil gets one with dial and response-header timeouts and
// kept-alive connections, but no overall timeout, since bodies stream.
func NewS3(cfg S3Config, client *http.Client) (*S3, error) {
	if problems := s3Problems(cfg); len(problems) > 0 {
		return nil, fmt.Errorf("storage: s3: %s", strings.Join(problems, "; "))
	}
	u, _ := url.Parse(cfg.Endpoint) // s3Problems parsed it
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.Prefix != "" && !strings.HasSuffix(cfg.Prefix, "/") {
		cfg.Prefix += "/"
	}
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
			ExpectContinueTimeout: time.Second,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   32,
			IdleConnTimeout:       90 * time.Second,
		}}
	}
	u.Path = ""
	return &S3{
		cfg: cfg, endpoint: u, client: client,
		sig:      signer{accessKey: cfg.AccessKey, secretKey: cfg.SecretKey, region: cfg.Region, service: "s3"},
		PartSize: DefaultPartSize, PageSize: DefaultPageSize,
		CopyLimit: DefaultCopyLimit, CopyPartSize: DefaultCopyPartSize,
		bufs: &sync.Pool{}, now: time.Now,
	}, nil
}

// s3Problems says what is wrong with cfg, nothing when it can be used.
func s3Problems(cfg S3Config) []string {
	var problems []string
	u, err := url.Parse(cfg.Endpoint)
	switch {
	case cfg.Endpoint == "":
		problems = append(problems, "an endpoint is required")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil:
		problems = append(problems, fmt.Sprintf("the endpoint %q must be an http:// or https:// URL with only a host (and port)", cfg.Endpoint))
	}
	if !validBucket(cfg.Bucket) {
		problems = append(problems, fmt.Sprintf("the bucket name %q must be 3 to 63 lower-case letters, digits, dots and hyphens", cfg.Bucket))
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		problems = append(problems, "an access key and a secret key are required")
	}
	if cfg.Prefix != "" && (strings.HasPrefix(cfg.Prefix, "/") || checkPlace(strings.TrimSuffix(cfg.Prefix, "/")) != nil) {
		problems = append(problems, fmt.Sprintf("the prefix %q must be a relative key folder such as \"folio/\"", cfg.Prefix))
	}
	return problems
}

func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 || strings.Trim(b, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return false
	}
	return b[0] != '.' && b[0] != '-' && !strings.Contains(b, "..")
}

// Config is the configuration the store was made from.
func (s *S3) Config() S3Config { return s.cfg }

// WithInstance returns a store on the same bucket whose temporary keys
// carry the tag instance, as Local.WithInstance does.
func (s *S3) WithInstance(instance string) *S3 {
	c := *s
	c.instance = instance
	return &c
}

// objectURL is the URL of the object key (a full object key, prefix
// included); "" names the bucket.
func (s *S3) objectURL(key string, q url.Values) *url.URL {
	u := *s.endpoint
	if s.cfg.PathStyle {
		u.Path = "/" + s.cfg.Bucket + "/" + key
	} else {
		u.Host = s.cfg.Bucket + "." + u.Host
		u.Path = "/" + key
	}
	u.RawQuery = q.Encode()
	return &u
}

// do signs and sends one request. body, when not nil, is sent whole with
// its SHA-256 signed. A status of 300 or more is returned as an *S3Error
// (the body read and closed).
func (s *S3) do(ctx context.Context, method, key string, q url.Values, hdr http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.objectURL(key, q).String(), nil)
	if err != nil {
		return nil, fmt.Errorf("storage: s3: %w", err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	payload := emptySHA256
	if body != nil {
		payload = hexSHA256(body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
		if len(body) == 0 {
			req.Body, req.GetBody = http.NoBody, nil // else Go sends no Content-Length
		}
	}
	req.Header.Set("X-Amz-Content-Sha256", payload)
	s.sig.sign(req, payload, s.now())
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("storage: s3 %s: %w", method, scrubURL(err))
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, readS3Error(method, resp)
	}
	return resp, nil
}

// scrubURL drops the URL from a transport error: a presigned one would
// carry a signature, and the key says nothing to an operator.
func scrubURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// doDiscard is do for requests whose answer body is not needed.
func (s *S3) doDiscard(ctx context.Context, method, key string, q url.Values, hdr http.Header, body []byte) (http.Header, error) {
	resp, err := s.do(ctx, method, key, q, hdr, body)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Header, nil
}

// doXML is do for requests answering an XML document, decoded into v.
func (s *S3) doXML(ctx context.Context, method, key string, q url.Values, hdr http.Header, body []byte, v any) error {
	resp, err := s.do(ctx, method, key, q, hdr, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("storage: s3 %s: %w", method, err)
	}
	// CompleteMultipartUpload and CopyObject may answer 200 with an error
	// document when they fail after the status was sent.
	if e := parseS3Error(method, resp.StatusCode, b); e != nil {
		return e
	}
	if err := xml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("storage: s3 %s: malformed answer: %w", method, err)
	}
	return nil
}

// Check makes one cheap request to see that the bucket is there and the
// credentials are accepted, saying which is wrong when one is.
func (s *S3) Check(ctx context.Context) error {
	var out listResult
	err := s.doXML(ctx, http.MethodGet, "", url.Values{"list-type": {"2"}, "max-keys": {"1"}}, nil, nil, &out)
	var se *S3Error
	if errors.As(err, &se) {
		switch se.Code {
		case "NoSuchBucket":
			return fmt.Errorf("storage: s3: the bucket %q does not exist at %s", s.cfg.Bucket, s.endpoint)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidSecurity", "AuthorizationHeaderMalformed":
			return fmt.Errorf("storage: s3: %s refused the credentials for bucket %q (%s): check storage.s3.access_key, secret_key and region", s.endpoint, s.cfg.Bucket, se.Code)
		}
	}
	if err != nil {
		return fmt.Errorf("storage: s3: bucket %q at %s cannot be reached: %w", s.cfg.Bucket, s.endpoint, err)
	}
	return nil
}

// CreateBucket creates the bucket (tests and first set-ups).
func (s *S3) CreateBucket(ctx context.Context) error {
	_, err := s.doDiscard(ctx, http.MethodPut, "", nil, nil, nil)
	return err
}

// DeleteBucket removes the bucket, which must be empty.
func (s *S3) DeleteBucket(ctx context.Context) error {
	_, err := s.doDiscard(ctx, http.MethodDelete, "", nil, nil, nil)
	return err
}

// PresignGet returns a URL anyone may GET the content under key with until
// ttl has passed.
func (s *S3) PresignGet(key string, ttl time.Duration) (string, error) {
	return s.PresignGetAs(key, ttl, "", "")
}

// PresignGetAs is PresignGet with the Content-Type and Content-Disposition
// the server is to answer with (when not empty): the bucket does not know
// the type Folio detected.
func (s *S3) PresignGetAs(key string, ttl time.Duration, contentType, disposition string) (string, error) {
	if err := checkPlace(key); err != nil {
		return "", err
	}
	if ttl < time.Second || ttl > 7*24*time.Hour {
		return "", fmt.Errorf("storage: s3: presigned URLs live from one second to seven days, not %s", ttl)
	}
	q := url.Values{}
	if contentType != "" {
		q.Set("response-content-type", contentType)
	}
	if disposition != "" {
		q.Set("response-content-disposition", disposition)
	}
	u := s.objectURL(s.cfg.Prefix+key, q)
	req := &http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{}}
	return s.sig.presign(req, ttl, s.now()), nil
}

// Stat describes the object under key.
func (s *S3) Stat(ctx context.Context, key string) (fs.FileInfo, error) {
	if err := checkPlace(key); err != nil {
		return nil, err
	}
	return s.head(ctx, key)
}

// head is a HEAD of the object under key (without the prefix).
func (s *S3) head(ctx context.Context, key string) (*objectInfo, error) {
	h, err := s.doDiscard(ctx, http.MethodHead, s.cfg.Prefix+key, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	size, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("storage: s3 HEAD: no Content-Length")
	}
	mod, _ := http.ParseTime(h.Get("Last-Modified"))
	return &objectInfo{name: key, size: size, mod: mod, etag: h.Get("ETag")}, nil
}

// Open returns an Object whose reads are ranged GETs from its offset: a
// Seek costs nothing until the next Read, so http.ServeContent answers
// HEAD, Range and conditional requests without fetching unneeded bytes.
func (s *S3) Open(ctx context.Context, key string) (Object, error) {
	if err := checkPlace(key); err != nil {
		return nil, err
	}
	info, err := s.head(ctx, key)
	if err != nil {
		return nil, err
	}
	return &s3Object{s: s, ctx: ctx, info: info}, nil
}

// Delete removes the object under key.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkPlace(key); err != nil {
		return err
	}
	if _, err := s.doDiscard(ctx, http.MethodDelete, s.cfg.Prefix+key, nil, nil, nil); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("storage: delete: %w", err)
	}
	return nil
}

func hexSHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
