"""One unit per ecosystem: markers and manifests, lockfiles, environment wrappers, conventional commands (or a
recipe), runner vocabulary and output summary parser. Read them through `registry`."""
