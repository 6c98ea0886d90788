package render

import (
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/calico-pilot/calico-pilot/internal/layout"
)

// calicoDefaultNamespace is where Felix looks for the Typha Service (TyphaK8sNamespace) and Typha
// counts its peers for connection rebalancing (K8sNamespace) when nothing else is configured: a
// layout in another namespace must say so to both.
const calicoDefaultNamespace = "kube-system"

// The mutual TLS of Felix and Typha (values.Options.TyphaTLS, docs/layouts.md). Both sides read a
// key pair from a Secret (the keys of a kubernetes.io/tls Secret) and the CA bundle from a ConfigMap,
// each mounted read-only; the env variables are Calico's own names of Felix's and Typha's parameters.

// felixTyphaTLSEnv is Felix's side: its CA file, client key pair and what it requires of Typha's
// certificate. Nothing without TLS.
func felixTyphaTLSEnv(t *layout.TyphaTLS) []corev1.EnvVar {
	if t == nil {
		return nil
	}
	e := []corev1.EnvVar{
		env("FELIX_TYPHACAFILE", t.CAFile()),
		env("FELIX_TYPHACERTFILE", path.Join(t.NodeMountPath, corev1.TLSCertKey)),
		env("FELIX_TYPHAKEYFILE", path.Join(t.NodeMountPath, corev1.TLSPrivateKeyKey)),
	}
	if t.ServerCN != "" {
		e = append(e, env("FELIX_TYPHACN", t.ServerCN))
	}
	if t.ServerURISAN != "" {
		e = append(e, env("FELIX_TYPHAURISAN", t.ServerURISAN))
	}
	return e
}

// typhaServerTLSEnv is Typha's side: its CA file, server key pair and what it requires of Felix's
// certificate. Nothing without TLS.
func typhaServerTLSEnv(t *layout.TyphaTLS) []corev1.EnvVar {
	if t == nil {
		return nil
	}
	e := []corev1.EnvVar{
		env("TYPHA_CAFILE", t.CAFile()),
		env("TYPHA_SERVERCERTFILE", path.Join(t.TyphaMountPath, corev1.TLSCertKey)),
		env("TYPHA_SERVERKEYFILE", path.Join(t.TyphaMountPath, corev1.TLSPrivateKeyKey)),
	}
	if t.ClientCN != "" {
		e = append(e, env("TYPHA_CLIENTCN", t.ClientCN))
	}
	if t.ClientURISAN != "" {
		e = append(e, env("TYPHA_CLIENTURISAN", t.ClientURISAN))
	}
	return e
}

// typhaTLSVolumes are the CA bundle's volume and the volume of Secret keyPair, each named after its
// object (as the operator names them, so a taken-over pod keeps its volumes).
func typhaTLSVolumes(t *layout.TyphaTLS, keyPair string) []corev1.Volume {
	return []corev1.Volume{
		configMapVolume(t.CABundle.ConfigMap, t.CABundle.ConfigMap),
		{Name: keyPair, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: keyPair}}},
	}
}

// typhaTLSMounts mount typhaTLSVolumes read-only: the CA bundle at its mount path, the key pair at
// mountPath.
func typhaTLSMounts(t *layout.TyphaTLS, keyPair, mountPath string) []corev1.VolumeMount {
	return []corev1.VolumeMount{
		{Name: t.CABundle.ConfigMap, MountPath: t.CABundle.MountPath, ReadOnly: true},
		{Name: keyPair, MountPath: mountPath, ReadOnly: true},
	}
}

// AnnotationChecksumTyphaTLS carries layout.TyphaTLS.Checksum on calico-node's and Typha's pod
// templates: renewed certificates roll both.
const AnnotationChecksumTyphaTLS = "checksum/typha-tls"

// withTyphaTLSChecksum adds the TLS material's checksum to a pod template's annotations.
func withTyphaTLSChecksum(ann map[string]string, t *layout.TyphaTLS) map[string]string {
	if t != nil && t.Checksum != "" {
		ann[AnnotationChecksumTyphaTLS] = t.Checksum
	}
	return ann
}
