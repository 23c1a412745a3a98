'use strict'

const units = ['B', 'KB', 'MB', 'GB', 'TB']

function formatBytes (bytes, decimals = 1) {
  if (!Number.isFinite(bytes)) {
    throw new TypeError('bytes must be a finite number')
  }
  let i = 0
  while (Math.abs(bytes) >= 1024 && i < units.length - 1) {
    bytes /= 1024
    i++
  }
  return `${bytes.toFixed(i === 0 ? 0 : decimals)} ${units[i]}`
}

function formatDuration (ms) {
  if (ms < 1000) {
    return `${ms} ms`
  }
  const seconds = ms / 1000
  if (seconds < 60) {
    return `${seconds.toFixed(1)} s`
  }
  const minutes = Math.floor(seconds / 60)
  return `${minutes} min ${Math.round(seconds % 60)} s`
}

module.exports = { formatBytes, formatDuration }