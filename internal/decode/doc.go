// Package decode turns YAML or JSON bytes into calico-pilot's API types.
//
// NetworkConfig and ControllerConfiguration are decoded strictly: a wrong apiVersion or kind, an
// unknown or misspelled field, a duplicate field or a value of the wrong type is a field.Error whose
// path is rooted where the user wrote the value (for a Shoot's providerConfig:
// spec.networking.providerConfig.ipam.typah). A Shoot is decoded leniently, because it has many
// fields this project does not model; only its providerConfig is decoded strictly.
//
// Decoding lives here rather than in the api packages so that the API types stay plain data and the
// same decoder serves the CLI, the webhook and the controller.
package decode
