"""Record one game of ``KingsCorner-v0`` with Gymnasium's ``RecordVideo`` (the ``video`` extra:
moviepy) and write the docs' video and GIF beside this file: ``make video``, or
``python docs/media/record_video.py [--out docs/media]``.

The learner is the heuristic, against the heuristic (``opponents="heuristic"``), standard rules,
two players; each frame is the table as the learner sees it when it is to act
(``render_mode="rgb_array"``). The same seed gives the same game, so the GIF (Pillow) shows the
frames the MP4 holds.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import gymnasium
from gymnasium.wrappers import RecordVideo

import kc_env  # noqa: F401  (registers KingsCorner-v0)
from kc_env import agents


def play(env: gymnasium.Env, seed: int) -> list:
    """Play one episode with the heuristic as the learner; the frames rendered after each step."""
    me = agents.load("heuristic", seed=seed)
    obs, info = env.reset(seed=seed)
    frames, done = [env.render()], False
    while not done:
        obs, _, terminated, truncated, info = env.step(me.act({"observation": obs, "action_mask": info["action_mask"]}))
        frames.append(env.render())
        done = terminated or truncated
    return frames


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/media"))
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make = dict(num_players=2, opponents="heuristic", learner_seat=0, render_mode="rgb_array")
    with tempfile.TemporaryDirectory() as folder:
        env = RecordVideo(gymnasium.make("KingsCorner-v0", **make), folder, name_prefix="game",
                          episode_trigger=lambda episode: True, disable_logger=True)
        play(env, args.seed)
        env.close()
        (Path(folder) / "game-episode-0.mp4").replace(args.out / "kings-corner.mp4")
    from PIL import Image

    frames = [Image.fromarray(f).resize((f.shape[1] // 2, f.shape[0] // 2), Image.Resampling.LANCZOS)
              for f in play(gymnasium.make("KingsCorner-v0", **make), args.seed)]
    frames[0].save(args.out / "kings-corner.gif", save_all=True, append_images=frames[1:], duration=700,
                   loop=0, optimize=True)
    print(f"wrote {args.out / 'kings-corner.mp4'} and {args.out / 'kings-corner.gif'} ({len(frames)} frames)")


if __name__ == "__main__":
    main()
