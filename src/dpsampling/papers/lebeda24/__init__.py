"""lebeda24: Lebeda et al., Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms under Composition."""
