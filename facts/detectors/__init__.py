"""One module per signal family of design §2; `freshpass.facts.detect` orders and merges what they find."""
