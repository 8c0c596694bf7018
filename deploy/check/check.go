// Package check validates the Kubernetes manifests in deploy/ offline:
// every document decodes strictly into the k8s.io/api type of its kind (a
// misspelt or misplaced field is an error, as kubectl's server-side
// validation would say), and the pieces fit together the way ramabana-mcp
// needs. It is a module of its own, so that k8s.io/api stays out of the
// server's module graph; CI runs its test.
package check

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Manifests are the objects of deploy/, by kind.
type Manifests struct {
	Deployments []*appsv1.Deployment
	Services    []*corev1.Service
	Secrets     []*corev1.Secret
}

// docSep splits a YAML stream into documents.
var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// Load decodes every *.yaml and *.yml file in dir.
func Load(dir string) (*Manifests, error) {
	var files []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no manifests (*.yaml) in %s", dir)
	}
	slices.Sort(files)
	m := &Manifests{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i, doc := range docSep.Split(string(b), -1) {
			if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
				continue
			}
			if err := m.add([]byte(doc)); err != nil {
				return nil, fmt.Errorf("%s, document %d: %w", filepath.Base(f), i+1, err)
			}
		}
	}
	return m, nil
}

// comment is a whole-line comment.
var comment = regexp.MustCompile(`(?m)^\s*#.*$`)

// stripComments drops whole-line comments, to tell an empty document.
func stripComments(b []byte) []byte { return comment.ReplaceAll(b, nil) }

// add decodes one document strictly into the type its apiVersion and kind
// name.
func (m *Manifests) add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	strict := func(into any) error {
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			return fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
		}
		return nil
	}
	switch gvk := tm.APIVersion + " " + tm.Kind; gvk {
	case "apps/v1 Deployment":
		d := &appsv1.Deployment{}
		m.Deployments = append(m.Deployments, d)
		return strict(d)
	case "v1 Service":
		s := &corev1.Service{}
		m.Services = append(m.Services, s)
		return strict(s)
	case "v1 Secret":
		s := &corev1.Secret{}
		m.Secrets = append(m.Secrets, s)
		return strict(s)
	default:
		return fmt.Errorf("kind %q: this check knows apps/v1 Deployment, v1 Service and v1 Secret; teach it the new kind", gvk)
	}
}

// The server's container, its port and its endpoints.
const (
	ContainerName = "ramabana-mcp"
	TokenEnv      = "RAMABANA_TOKEN"
	ReadyPath     = "/readyz"
	HealthPath    = "/healthz"
)

// Check returns every way the manifests fail ramabana-mcp's needs, nil
// when they meet them all.
func (m *Manifests) Check() []error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(m.Deployments) != 1 || len(m.Services) != 1 || len(m.Secrets) != 1 {
		fail("want one Deployment, one Service and one Secret; have %d, %d and %d", len(m.Deployments), len(m.Services), len(m.Secrets))
		return errs
	}
	d, svc, secret := m.Deployments[0], m.Services[0], m.Secrets[0]
	pod := &d.Spec.Template.Spec

	if d.Spec.Selector == nil || !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		fail("Deployment %s: spec.selector.matchLabels must match the pod template's labels", d.Name)
	}
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == ContainerName })
	if i < 0 {
		fail("Deployment %s: no container named %s", d.Name, ContainerName)
		return errs
	}
	c := &pod.Containers[i]
	if len(c.Ports) != 1 {
		fail("container %s: want one port (the HTTP listener), have %d", c.Name, len(c.Ports))
		return errs
	}
	port := c.Ports[0]

	// The server listens where the port says.
	if addr, ok := flagValue(c.Args, "--addr"); !ok {
		fail("container %s: no --addr in args; the image's default is 0.0.0.0:8765, spell it out so that the port is checked", c.Name)
	} else if host, p, err := net.SplitHostPort(addr); err != nil || p != strconv.Itoa(int(port.ContainerPort)) {
		fail("container %s: --addr %s does not listen on containerPort %d", c.Name, addr, port.ContainerPort)
	} else if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		fail("container %s: --addr %s listens on loopback, where neither probes nor the Service reach it", c.Name, addr)
	}
	if t, _ := flagValue(c.Args, "--transport"); t != "http" {
		fail("container %s: want --transport http in args, have %q", c.Name, t)
	}
	if _, ok := flagValue(c.Args, "--token"); ok {
		fail("container %s: --token in args shows the token to anyone who can read the pod; use env %s from the Secret", c.Name, TokenEnv)
	}

	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"readinessProbe", c.ReadinessProbe, ReadyPath}, {"livenessProbe", c.LivenessProbe, HealthPath}} {
		switch {
		case p.probe == nil || p.probe.HTTPGet == nil:
			fail("container %s: want an httpGet %s on %s", c.Name, p.name, p.path)
		case p.probe.HTTPGet.Path != p.path:
			fail("container %s: %s on %q, want %s", c.Name, p.name, p.probe.HTTPGet.Path, p.path)
		case !samePort(p.probe.HTTPGet.Port, port):
			fail("container %s: %s on port %s, not the container's port %s/%d", c.Name, p.name, p.probe.HTTPGet.Port.String(), port.Name, port.ContainerPort)
		case p.probe.HTTPGet.Scheme != "" && p.probe.HTTPGet.Scheme != corev1.URISchemeHTTP:
			fail("container %s: %s over %s; the server speaks plain HTTP", c.Name, p.name, p.probe.HTTPGet.Scheme)
		}
	}

	if !matches(svc.Spec.Selector, d.Spec.Template.Labels) || len(svc.Spec.Selector) == 0 {
		fail("Service %s: its selector does not select the Deployment's pods", svc.Name)
	}
	if !slices.ContainsFunc(svc.Spec.Ports, func(sp corev1.ServicePort) bool { return samePort(sp.TargetPort, port) }) {
		fail("Service %s: no port targets the container's port %s/%d", svc.Name, port.Name, port.ContainerPort)
	}

	tokenFromSecret := false
	for _, e := range c.Env {
		if e.Name != TokenEnv {
			continue
		}
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			fail("container %s: %s must come from the Secret (valueFrom.secretKeyRef), not a literal", c.Name, TokenEnv)
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		_, inData := secret.Data[ref.Key]
		_, inString := secret.StringData[ref.Key]
		switch {
		case ref.Name != secret.Name:
			fail("container %s: %s from Secret %q, but the Secret is %q", c.Name, TokenEnv, ref.Name, secret.Name)
		case !inData && !inString:
			fail("container %s: %s from key %q, which Secret %s does not hold", c.Name, TokenEnv, ref.Key, secret.Name)
		case ref.Optional != nil && *ref.Optional:
			fail("container %s: %s must not be optional: without a token the server refuses a non-loopback address", c.Name, TokenEnv)
		default:
			tokenFromSecret = true
		}
	}
	if !tokenFromSecret {
		fail("container %s: no env %s from Secret %s", c.Name, TokenEnv, secret.Name)
	}

	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
	}
	for _, ct := range slices.Concat(pod.InitContainers, pod.Containers) {
		sc := ct.SecurityContext
		if !nonRoot(pod.SecurityContext, sc) {
			fail("container %s: runAsNonRoot must be true (in the pod's or the container's securityContext)", ct.Name)
		}
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			fail("container %s: want securityContext.readOnlyRootFilesystem: true, with emptyDir mounts where it writes", ct.Name)
		}
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			fail("container %s: want securityContext.allowPrivilegeEscalation: false", ct.Name)
		}
		r := ct.Resources
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := r.Requests[name]; !ok || q.IsZero() {
				fail("container %s: no %s request", ct.Name, name)
			}
		}
		if q, ok := r.Limits[corev1.ResourceMemory]; !ok || q.IsZero() {
			fail("container %s: no memory limit", ct.Name)
		} else if req, ok := r.Requests[corev1.ResourceMemory]; ok && q.Cmp(req) < 0 {
			fail("container %s: memory limit %s below its request %s", ct.Name, q.String(), req.String())
		}
		mounted := map[string]bool{}
		for _, vm := range ct.VolumeMounts {
			if !volumes[vm.Name] {
				fail("container %s: mounts volume %q, which the pod does not define", ct.Name, vm.Name)
			}
			mounted[vm.MountPath] = true
		}
		for _, dir := range []string{"/workspace", "/tmp", "/home/ramabana"} {
			if !mounted[dir] {
				fail("container %s: nothing mounted at %s, which it writes (the root filesystem is read-only)", ct.Name, dir)
			}
		}
	}
	return errs
}

// Err joins Check's errors, nil when there are none.
func (m *Manifests) Err() error { return errors.Join(m.Check()...) }

// matches reports whether every label of sel is in labels.
func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// samePort reports whether p (by name or number) is the container port cp.
func samePort(p intstr.IntOrString, cp corev1.ContainerPort) bool {
	if p.Type == intstr.String {
		return p.StrVal != "" && p.StrVal == cp.Name
	}
	return p.IntVal == cp.ContainerPort
}

// nonRoot reports whether the container's runAsNonRoot, or else the pod's,
// is true.
func nonRoot(pod *corev1.PodSecurityContext, c *corev1.SecurityContext) bool {
	if c != nil && c.RunAsNonRoot != nil {
		return *c.RunAsNonRoot
	}
	return pod != nil && pod.RunAsNonRoot != nil && *pod.RunAsNonRoot
}

// flagValue returns the value of --name in args, given as "--name v" or
// "--name=v".
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}
