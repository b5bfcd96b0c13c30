package filehost

// lskyProfile is Lsky Pro 2.x's profile. Capacities are in KB as floats, as
// Lsky sends them; capacity 0 means no quota. image_num counts every file
// record of the user, since to a Lsky client every upload is an image.
type lskyProfile struct {
	Name         string  `json:"name"`
	Email        string  `json:"email"`
	Capacity     float64 `json:"capacity"`
	UsedCapacity float64 `json:"used_capacity"`
	ImageNum     int64   `json:"image_num"`
	AlbumNum     int64   `json:"album_num"`
}
