"""Quality control: one check per module, the gate and its report."""
