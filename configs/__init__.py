"""The shipped training configs (``*.yaml``); installed as package data ``kc_env.configs``, so
``kc train NAME`` finds ``NAME.yaml`` here from any folder. This file only makes the folder a
package."""
