package sqlstore

// NewIDAt exposes newIDAt so tests can make ids at chosen instants.
var NewIDAt = newIDAt

// WithBinaryParameters exposes withBinaryParameters to the DSN tests.
var WithBinaryParameters = withBinaryParameters
