package v1beta1

// IsWorkerless is the one answer to "is this Shoot workerless?": it has no worker pools, so
// Gardener creates no Network for it and there is no Calico to configure or check (as Gardener's
// v1beta1helper.IsWorkerless decides it).
func (s *Shoot) IsWorkerless() bool { return len(s.Spec.Provider.Workers) == 0 }

// NetworkingType is spec.networking.type; "" when it is not set.
func (s *Shoot) NetworkingType() string {
	if s.Spec.Networking == nil || s.Spec.Networking.Type == nil {
		return ""
	}
	return *s.Spec.Networking.Type
}
