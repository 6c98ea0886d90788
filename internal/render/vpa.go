package render

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// vpas returns the VerticalPodAutoscalers of calico-node and typha (vpa mode) and of
// kube-controllers (whenever the shoot runs a VPA).
func vpas(o *values.Options) []client.Object {
	a := o.AutoScaling
	var objs []client.Object
	off := func(name string) vpav1.ContainerResourcePolicy {
		return vpav1.ContainerResourcePolicy{ContainerName: name, Mode: ptr.To(vpav1.ContainerScalingModeOff)}
	}
	if a.NodeVPA {
		policies := []vpav1.ContainerResourcePolicy{{
			ContainerName: NameCalicoNode, ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
			MinAllowed: resourceList(a.NodeMinAllowed),
		}}
		// The small helper sidecars keep their fixed requests.
		policies = append(policies, off(ContainerAddSNAT), off(ContainerEnsurer), off(ContainerBirdExporter))
		objs = append(objs, vpa(NameCalicoNode, "DaemonSet", NameCalicoNode, policies))
	}
	if a.TyphaVPA {
		objs = append(objs, vpa(NameTypha, "Deployment", NameTyphaDeployment, []vpav1.ContainerResourcePolicy{{
			ContainerName: "*", ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
			MinAllowed: resourceList(a.TyphaMinAllowed),
		}}))
	}
	if a.KubeControllersVPA {
		objs = append(objs, vpa(NameKubeControllers, "Deployment", NameKubeControllers, []vpav1.ContainerResourcePolicy{{
			ContainerName: "*", ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
		}}))
	}
	return objs
}

func vpa(name, kind, target string, policies []vpav1.ContainerResourcePolicy) *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{
		TypeMeta:   typeMeta("autoscaling.k8s.io/v1", "VerticalPodAutoscaler"),
		ObjectMeta: meta(name, Namespace, nil),
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:      &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: target},
			UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: ptr.To(vpav1.UpdateModeInPlaceOrRecreate)},
			ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: policies},
		},
	}
}
