# lblint in a container:
#   docker build -t lblint .
#   docker run --rm -v "$PWD:/work" lblint check --profile cluster.yaml k8s/
# Built with the `dist` profile (Cargo.toml), run as a non-root user from distroless/cc
# (glibc and libgcc, no shell).

FROM rust:1-slim-bookworm AS build
WORKDIR /src
# Only what the build reads: the manifest and lock, build.rs and the rule documents it
# embeds (rules/*.md), and the sources.
COPY Cargo.toml Cargo.lock build.rs ./
COPY rules ./rules
COPY src ./src
RUN cargo build --profile dist --locked \
    && install -D -m 0755 target/dist/lblint /out/lblint

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/lblint /usr/local/bin/lblint
WORKDIR /work
# 65532 is distroless's `nonroot` user.
USER 65532:65532
ENTRYPOINT ["lblint"]
CMD ["--help"]
