@_exported import PresenceImaging
@_exported import PresenceTransfer
