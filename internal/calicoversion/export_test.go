package calicoversion

// Implemented returns every Difference the code implements (for the external tests).
func Implemented() []Difference { return append([]Difference(nil), implemented...) }
