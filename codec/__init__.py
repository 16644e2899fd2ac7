"""The Variant binary format: encode, decode, shred and reconstruct (``vpush.codec``)."""
