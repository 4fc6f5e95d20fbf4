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
}
