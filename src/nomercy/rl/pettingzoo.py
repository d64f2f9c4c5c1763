"""``nomercy.rl.pettingzoo.env(players=4, rules=..., render_mode=...)``: the AEC environment.

The implementation lives in :mod:`nomercy.rl.pettingzoo_env`; this module is the short,
PettingZoo-style import path (like ``pettingzoo.classic.uno_v4``).
"""

from nomercy.rl.pettingzoo_env import PZ_ENV_ID, NoMercyAECEnv, env, raw_env

__all__ = ["PZ_ENV_ID", "NoMercyAECEnv", "env", "raw_env"]
