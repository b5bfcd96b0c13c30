package filehost

type registerRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"` // accepted in place of username
	Password string `json:"password"`
	OTP      string `json:"otp"` // the second factor, when the account has TOTP on
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}
