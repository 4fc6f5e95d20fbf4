#!/usr/bin/python3
"""A real RTSP server for the tests: GStreamer's gst-rtsp-server (Debian's
gir1.2-gst-rtsp-server-1.0) serving an H.264 MP4 at rtsp://127.0.0.1:PORT/live, its RTP over
TCP or UDP as the client asks. Every client gets the file from its start, paced in real time.
Usage: rtsp-server.py PORT FILE.mp4. Prints "ready" once it listens."""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

port, path = sys.argv[1], sys.argv[2]
Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
location = path.replace("\\", "\\\\").replace('"', '\\"')
factory.set_launch(f'( filesrc location="{location}" ! qtdemux ! h264parse config-interval=-1 ! rtph264pay name=pay0 pt=96 )')
server.get_mount_points().add_factory("/live", factory)
if server.attach(None) == 0:
    sys.exit("rtsp-server: cannot listen on port " + port)
print("ready", flush=True)
GLib.MainLoop().run()
