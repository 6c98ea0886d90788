// Package features defines calico-pilot's feature gates (NonPrivilegedCalicoNode,
// SeamlessOverlaySwitch). There is no global gate: New builds a fresh one per call, and the
// controller reads its ControllerConfiguration once and passes the resulting gate down.
package features
