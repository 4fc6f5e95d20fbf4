/// An output's answer when its session offers it a frame (`CaptureOutput.reserveFrame`): the one
/// question the capture loop still asks per frame, because only the output knows whether it is busy.
enum FrameReservation: Equatable {
    /// Still busy with an earlier frame, or wanting none now: the frame drops as late for it.
    case declined
    /// Takes the frame, at the plane size it negotiated (`OutputRequirements`).
    case taken
    /// Takes the frame and needs its luma plane whole whatever it negotiated: a metadata output's
    /// frame due for faces (the cascade finds fewer faces in a plane decoded at half scale).
    case takenWhole
    /// Takes the frame without looking at its pixels: when every output taking it says so and an
    /// earlier frame's image is kept (`OutputRequirements.unchangedFrameTolerance`), the frame is
    /// given that image and not decoded. A metadata output's frame between whole-frame code scans
    /// with no code to follow and no faces due.
    case takenWithoutPixels
}
