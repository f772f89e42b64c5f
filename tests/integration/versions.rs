//! Versions as clusters report them (`kubectl version`, node `kubeletVersion`): vendor builds
//! are compared on their release, and only a string without `major.minor` is a profile error.

use super::cli::tempdir;
use super::{lblint, lint_file, one, profile_with};

/// OKE002 hangs on Kubernetes 1.30 (ipMode honoured): the same verdict for a release and
/// for every vendor's build of it.
#[test]
fn vendor_builds_decide_like_their_release() {
    let verdict = |version: &str| {
        let spec = format!("  kubernetesVersion: \"{version}\"\n");
        lint_file(
            "testdata/proxy/oke-proxy.yaml",
            &profile_with("oke", &spec),
            "OKE",
        )
        .0
    };
    for version in [
        "v1.29.1+k3s1",
        "v1.29.1-eks-a1b2c3d",
        "1.29.1-gke.1014001",
        "v1.29.1-aliyun.1",
        "v1.29.1+rke2r1",
        "1.29",
    ] {
        assert_eq!(verdict(version), one("OKE002", "error", 8, 5), "{version}");
    }
    for version in [
        "v1.30.2+k3s1",
        "v1.30.2-eks-a1b2c3d",
        "1.30.5-gke.1014001",
        "v1.30.3-tke.5",
        "V1.31.0+rke2r1",
        "1.30",
    ] {
        assert_eq!(verdict(version), vec![], "{version}");
    }
}

#[test]
fn a_version_without_major_minor_is_a_located_profile_error() {
    let dir = tempdir("versions");
    let path = dir.join("profile.yaml");
    let write = |version: &str| {
        let text = format!(
            "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: eks\n  \
             kubernetesVersion: \"{version}\"\n"
        );
        std::fs::write(&path, text).unwrap();
        lblint(&["profile", "check", path.to_str().unwrap()])
    };
    for good in ["v1.24.6+k3s1", "v1.30.2-eks-a1b2c3d", "1.30.5-gke.1014001"] {
        let run = write(good);
        assert_eq!(run.code, 0, "{good}: {}", run.stderr);
    }
    for bad in ["1", "v1", "1.x", "1.30-"] {
        let run = write(bad);
        assert_eq!(run.code, 2, "{bad}");
        let expected =
            format!("`{bad}` is not a version lblint can compare, for `spec.kubernetesVersion`");
        assert_eq!(crate::error_messages(&run.stderr), [expected], "{bad}");
        assert!(run.stderr.contains("profile.yaml:5:22"), "{}", run.stderr);
    }
}
