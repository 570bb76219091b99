"""What the tests share: vaults, real processes and clients, the parts a machine may lack, the repo's paths."""
