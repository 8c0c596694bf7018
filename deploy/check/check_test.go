package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// deployDir holds the manifests under test.
const deployDir = ".."

func load(t *testing.T) *Manifests {
	t.Helper()
	m, err := Load(deployDir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifests is what CI runs: deploy/'s manifests decode strictly and
// meet every check.
func TestManifests(t *testing.T) {
	m := load(t)
	if err := m.Err(); err != nil {
		t.Fatalf("deploy/ manifests:\n%v", err)
	}
}

// container is the server's container in m.
func container(m *Manifests) *corev1.Container {
	for i, c := range m.Deployments[0].Spec.Template.Spec.Containers {
		if c.Name == ContainerName {
			return &m.Deployments[0].Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

// TestCheckCatches breaks the manifests one way at a time: each must be
// caught, with an error that names what is wrong.
func TestCheckCatches(t *testing.T) {
	f := false
	for _, tc := range []struct {
		name   string
		breakM func(m *Manifests)
		want   string
	}{
		{"readiness on /healthz", func(m *Manifests) { container(m).ReadinessProbe.HTTPGet.Path = "/healthz" }, "readinessProbe on \"/healthz\", want /readyz"},
		{"no liveness probe", func(m *Manifests) { container(m).LivenessProbe = nil }, "want an httpGet livenessProbe on /healthz"},
		{"probe on another port", func(m *Manifests) { container(m).LivenessProbe.HTTPGet.Port = intstr.FromInt32(9000) }, "livenessProbe on port 9000"},
		{"service targets another port", func(m *Manifests) { m.Services[0].Spec.Ports[0].TargetPort = intstr.FromString("metrics") }, "no port targets the container's port"},
		{"service selects nothing", func(m *Manifests) { m.Services[0].Spec.Selector = map[string]string{"app": "other"} }, "does not select the Deployment's pods"},
		{"--addr on another port", func(m *Manifests) { setArg(container(m), "--addr", "0.0.0.0:9999") }, "does not listen on containerPort 8765"},
		{"--addr on loopback", func(m *Manifests) { setArg(container(m), "--addr", "127.0.0.1:8765") }, "listens on loopback"},
		{"token as a literal", func(m *Manifests) {
			c := container(m)
			for i := range c.Env {
				if c.Env[i].Name == TokenEnv {
					c.Env[i] = corev1.EnvVar{Name: TokenEnv, Value: "secret"}
				}
			}
		}, "must come from the Secret"},
		{"token from a missing key", func(m *Manifests) { tokenRef(container(m)).Key = "password" }, "which Secret ramabana-mcp-token does not hold"},
		{"token from another Secret", func(m *Manifests) { tokenRef(container(m)).Name = "other" }, "from Secret \"other\""},
		{"token on the command line", func(m *Manifests) { c := container(m); c.Args = append(c.Args, "--token", "x") }, "--token in args"},
		{"may run as root", func(m *Manifests) { m.Deployments[0].Spec.Template.Spec.SecurityContext.RunAsNonRoot = &f }, "runAsNonRoot must be true"},
		{"writable root", func(m *Manifests) { container(m).SecurityContext.ReadOnlyRootFilesystem = &f }, "readOnlyRootFilesystem"},
		{"no memory limit", func(m *Manifests) { delete(container(m).Resources.Limits, corev1.ResourceMemory) }, "no memory limit"},
		{"no cpu request", func(m *Manifests) { delete(container(m).Resources.Requests, corev1.ResourceCPU) }, "no cpu request"},
		{"limit below request", func(m *Manifests) { container(m).Resources.Limits[corev1.ResourceMemory] = resource.MustParse("1Mi") }, "below its request"},
		{"no /tmp", func(m *Manifests) {
			c := container(m)
			for i, vm := range c.VolumeMounts {
				if vm.MountPath == "/tmp" {
					c.VolumeMounts = append(c.VolumeMounts[:i], c.VolumeMounts[i+1:]...)
					break
				}
			}
		}, "nothing mounted at /tmp"},
		{"two Secrets", func(m *Manifests) { m.Secrets = append(m.Secrets, m.Secrets[0]) }, "one Secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := load(t)
			tc.breakM(m)
			err := m.Err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error holding %q", err, tc.want)
			}
		})
	}
}

func setArg(c *corev1.Container, name, value string) {
	for i, a := range c.Args {
		if a == name && i+1 < len(c.Args) {
			c.Args[i+1] = value
		}
	}
}

func tokenRef(c *corev1.Container) *corev1.SecretKeySelector {
	for _, e := range c.Env {
		if e.Name == TokenEnv && e.ValueFrom != nil {
			return e.ValueFrom.SecretKeyRef
		}
	}
	return &corev1.SecretKeySelector{}
}

// TestLoadStrict: a misspelt or misplaced field, or a kind the check does
// not know, fails the load and names the file.
func TestLoadStrict(t *testing.T) {
	deployment, err := os.ReadFile(filepath.Join(deployDir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"misspelt field", "readinessProbe:", "readinesProbe:", `unknown field "readinesProbe"`},
		{"misplaced field", "      automountServiceAccountToken: false", "      automountServiceAccountToken: false\n      runAsNonRoot: true", `unknown field "runAsNonRoot"`},
		{"wrong type", "containerPort: 8765", "containerPort: http", "containerPort"},
		{"unknown kind", "kind: Deployment", "kind: StatefulSet", `kind "apps/v1 StatefulSet"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(deployment), tc.old) {
				t.Fatalf("deployment.yaml no longer holds %q: update the test", tc.old)
			}
			dir := t.TempDir()
			bad := strings.Replace(string(deployment), tc.old, tc.new, 1)
			if err := os.WriteFile(filepath.Join(dir, "deployment.yaml"), []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "deployment.yaml") {
				t.Fatalf("got %v, want an error naming deployment.yaml and holding %q", err, tc.want)
			}
		})
	}
}
