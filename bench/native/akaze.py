"""Native reference for `npm run bench -- detect`: OpenCV's own AKAZE (Debian's python3-opencv)
on the grey images the features stage detects on, with the stage's threshold and sublevels.

Usage: akaze.py THRESHOLD OCTAVE_LAYERS ROUNDS THREADS IMAGE.pgm...
Prints one JSON object per image: keypoints found and the fastest of ROUNDS detectAndCompute
calls in milliseconds, on THREADS OpenCV threads.
"""
import json
import sys
import time

import cv2


def main() -> None:
    threshold, layers, rounds, threads = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    cv2.setNumThreads(threads)
    for path in sys.argv[5:]:
        grey = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        times = []
        count = 0
        for _ in range(rounds):
            akaze = cv2.AKAZE_create(threshold=threshold, nOctaveLayers=layers)
            started = time.perf_counter()
            keypoints, _descriptors = akaze.detectAndCompute(grey, None)
            times.append((time.perf_counter() - started) * 1000)
            count = len(keypoints)
        print(json.dumps({"path": path, "keypoints": count, "ms": min(times), "threads": cv2.getNumThreads(), "version": cv2.__version__}), flush=True)


if __name__ == "__main__":
    main()
