package auth

import "strings"

// BrowserName names the program behind a User-Agent the way a person
// knows it, "Firefox on Linux", "Safari on iPhone", "curl", for the
// account page's list of sessions (docs/console.md#your-account). It
// reads only the tokens each browser puts there on purpose; a string it
// does not recognise is "Unknown browser", with the system when that is
// known. The raw string stays beside it on the page, so a wrong guess
// costs nothing.
func BrowserName(ua string) string {
	ua = strings.TrimSpace(ua)
	if ua == "" {
		return "Unknown browser"
	}
	if name, ok := toolName(ua); ok {
		return name
	}
	browser := browserOf(ua)
	system := systemOf(ua)
	switch {
	case browser == "":
		browser = "Unknown browser"
	case browser == "WebView" && system == "Android":
		return "Android app (WebView)"
	case browser == "WebView" && (system == "iPhone" || system == "iPad"):
		return "App on " + system
	}
	if system == "" {
		return browser
	}
	return browser + " on " + system
}

// toolName recognises a program that is not a browser (an upload client,
// a command-line tool, a library) by the product token that starts its
// User-Agent, before the "/"; browsers all start with "Mozilla/".
func toolName(ua string) (string, bool) {
	first := ua
	if i := strings.IndexAny(first, "/ ("); i >= 0 {
		first = first[:i]
	}
	switch strings.ToLower(first) {
	case "curl":
		return "curl", true
	case "wget":
		return "Wget", true
	case "picgo":
		return "PicGo", true
	case "sharex":
		return "ShareX", true
	case "flameshot":
		return "Flameshot", true
	case "go-http-client":
		return "Go program", true
	case "python-requests", "python-urllib", "python-httpx", "aiohttp":
		return "Python program", true
	case "node", "node-fetch", "undici", "axios":
		return "Node.js program", true
	case "okhttp":
		return "Android app", true
	case "postmanruntime":
		return "Postman", true
	case "insomnia":
		return "Insomnia", true
	case "httpie":
		return "HTTPie", true
	case "folio":
		return "Folio", true
	}
	// Electron apps (PicGo's window) start with Mozilla but name
	// themselves further on.
	if strings.Contains(ua, "PicGo/") {
		return "PicGo", true
	}
	if strings.Contains(ua, "WindowsPowerShell/") || strings.Contains(ua, "PowerShell/") {
		return "PowerShell", true
	}
	return "", false
}

// browserOf names the browser. The order matters: browsers built on
// Chromium also say "Chrome/" and "Safari/", so the specific ones come
// first, and Safari is whatever is left that says "Version/".
func browserOf(ua string) string {
	has := func(token string) bool { return strings.Contains(ua, token) }
	switch {
	case has("Edg/"), has("EdgA/"), has("EdgiOS/"), has("Edge/"):
		return "Edge"
	case has("OPR/"), has("OPT/"), has("Opera"):
		return "Opera"
	case has("SamsungBrowser/"):
		return "Samsung Internet"
	case has("YaBrowser/"):
		return "Yandex Browser"
	case has("Vivaldi/"):
		return "Vivaldi"
	case has("Firefox/"), has("FxiOS/"):
		return "Firefox"
	case has("; wv)"):
		// Android's WebView marks itself so (Android 5 and later).
		return "WebView"
	case has("HeadlessChrome/"):
		return "Headless Chrome"
	case has("CriOS/"), has("Chrome/"), has("Chromium/"):
		return "Chrome"
	case has("Safari/") && has("Version/"):
		return "Safari"
	case has("AppleWebKit/") && (has("iPhone") || has("iPad")):
		// An app's WebView on iOS says no Safari/ and no Version/.
		return "WebView"
	}
	return ""
}

// systemOf names the operating system, as its marketing name.
func systemOf(ua string) string {
	has := func(token string) bool { return strings.Contains(ua, token) }
	switch {
	case has("iPhone"), has("iPod"):
		return "iPhone"
	case has("iPad"):
		return "iPad"
	case has("Android"):
		return "Android"
	case has("CrOS"):
		return "ChromeOS"
	case has("Windows"):
		return "Windows"
	case has("Macintosh"), has("Mac OS X"):
		return "macOS"
	case has("Linux"), has("X11"):
		return "Linux"
	}
	return ""
}
