package main

import (
	"context"
	"fmt"

	"folio/storage"
)

// openStoreDriver opens the store of driver as cfg configures it.
func openStoreDriver(_ context.Context, cfg *Config, driver string) (storage.Store, error) {
	switch driver {
	case "local":
		return storage.NewLocal(cfg.StorageDir)
	}
	return nil, fmt.Errorf("storage driver %q is not known", driver)
}
