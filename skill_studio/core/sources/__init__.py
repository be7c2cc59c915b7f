"""Skills from git repositories and folders elsewhere: where a source is (spec), fetching it
safely (git), finding its skills (tree), adding and updating them (ops), and the project lock
file that records what came from where (lock)."""
