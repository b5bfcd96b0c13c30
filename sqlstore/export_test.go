package sqlstore

// NewIDAt exposes newIDAt so tests can make ids at chosen instants.
var NewIDAt = newIDAt
