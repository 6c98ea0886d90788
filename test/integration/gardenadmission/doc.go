// Package gardenadmission tests `calico-pilot admission` deployed the gardener-operator way, end to end:
// one kube-apiserver plays the garden runtime cluster (SOURCE_CLUSTER: the certificate secret), another
// the virtual garden (Shoots, the ValidatingWebhookConfiguration registered in url mode with the generated
// CA) which calls the admission server on loopback; the CA rotates during the test.
package gardenadmission
