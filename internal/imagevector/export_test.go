package imagevector

// Load returns the images of the embedded vector with override (the contents of an override file in
// Gardener's format; nil for none) merged onto it, looked up without a Kubernetes version (every
// version constraint holds): LoadVector and Vector.Images, as the tests look images up.
func Load(override []byte) (Images, error) {
	v, err := LoadVector(override)
	if err != nil {
		return Images{}, err
	}
	return v.Images(FindOptions{})
}
